/// The one place a command's answer meets an output format. A command says what it found
/// (rows, a record, a named scalar, a report with its faces, a stream of events, prose for
/// people) and never which format is asked for; this type reads the format, once, and
/// renders: JSON and CSV for programs, a table or `key = value` lines for people. A
/// program that set a `ResultReceiver` on the sink (the MCP server, a test) gets the same
/// answers as values instead.
public struct Results {
    let format: OutputFormat
    let sink: OutputSink

    public init(format: OutputFormat, sink: OutputSink) {
        self.format = format
        self.sink = sink
    }

    /// Whether the answer goes to people (a table or lines) rather than to a program.
    private var forPeople: Bool { format == .table || format == .line }

    /// A stream of rows under `columns`; composite leaves named in `nested` are nested in
    /// JSON. Streams: nothing is held but a table's first rows, to measure its columns.
    public func rows(_ columns: [String], nested: Set<String> = []) -> RowWriter {
        RowWriter(columns: columns, format: format, sink: sink, nested: nested)
    }

    /// Rows in groups (see `GroupedRows`), flat under `columns` where not nested.
    public func groupedRows(_ columns: [String]) -> GroupedRows {
        GroupedRows(format: format, sink: sink, columns: columns)
    }

    /// One record of named values (`info`, one object).
    public func record(_ pairs: [(String, OutputValue)]) {
        if let receiver = sink.resultReceiver { return receiver.receive(answer: .object(pairs)) }
        RecordWriter.write(pairs, format: format, sink: sink)
    }

    /// One value under a name, as `count` answers: `{"count": 3}` in JSON, `3` (or `text`)
    /// otherwise.
    public func scalar(_ name: String, _ value: OutputValue, text: String? = nil) {
        if let receiver = sink.resultReceiver { return receiver.receive(answer: .object([(name, value)])) }
        sink.line(format == .json ? OutputValue.object([(name, value)]).jsonText : text ?? value.text(sink.dateStyle))
    }

    /// An answer with faces of its own (see `Report`).
    public func report(_ report: Report) {
        if let receiver = sink.resultReceiver { return receiver.receive(answer: report.value()) }
        switch format {
        case .json: report.value().writeDocument(to: sink)
        case .csv: render(report.csv?() ?? report.people().filter(\.isData))
        case .line: render(report.lines?() ?? report.people())
        case .table: render(report.people())
        }
    }

    /// Prose for people (a summary under a table, a confirmation): JSON and CSV carry
    /// only data, so they leave it out.
    public func note(_ text: String) {
        if forPeople && sink.resultReceiver == nil { sink.line(text) }
    }

    /// A stream of events (`watch`, `cloudkit events --follow`), each shown as it comes.
    public func events(columns: [String]) -> EventStream {
        EventStream(format: format, sink: sink, columns: columns)
    }

    public func flush() {
        sink.flush()
    }

    private func render(_ parts: [ReportPart]) {
        for part in parts {
            switch part {
            case .record(let pairs): record(pairs)
            case .rows(let columns, let values):
                let writer = rows(columns)
                values.forEach(writer.row)
                writer.finish()
            case .line(let text): sink.line(text)
            case .gap: sink.line()
            }
        }
    }
}

extension OutputValue {
    /// The value as a whole JSON answer, ended by a newline: a list one element a line, as
    /// rows are printed, anything else on one line.
    public func writeDocument(to sink: OutputSink) {
        guard case .array(let items) = self, !items.isEmpty else {
            writeJSON(to: sink)
            return sink.byte(10)
        }
        for (i, item) in items.enumerated() {
            sink.write(i == 0 ? "[\n  " : ",\n  ")
            item.writeJSON(to: sink)
        }
        sink.write("\n]\n")
    }

    /// `writeDocument`'s text, for a caller that sends it on (the MCP server).
    public var documentText: String {
        let sink = OutputSink(collectingWithWidth: nil)
        writeDocument(to: sink)
        sink.flush()
        return String(decoding: sink.collected, as: UTF8.self)
    }
}

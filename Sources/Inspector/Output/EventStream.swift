/// Events shown as they happen (`watch`, `cloudkit events --follow`): a JSON object a line,
/// CSV rows under one header, or a sentence a line for people. Each line is flushed at
/// once, for a reader on the other end of a pipe.
public final class EventStream {
    private let format: OutputFormat
    private let sink: OutputSink
    private let csv: RowWriter?

    init(format: OutputFormat, sink: OutputSink, columns: [String]) {
        self.format = format
        self.sink = sink
        csv = format == .csv ? RowWriter(columns: columns, format: .csv, sink: sink) : nil
        sink.flush()
    }

    /// One event: `value` for JSON, `row` (under the stream's columns) for CSV, `sentence`
    /// for people; only the one shown is built.
    public func emit(value: () -> OutputValue, row: () -> [OutputValue], sentence: () -> String) {
        switch format {
        case .json: sink.line(value().jsonText)
        case .csv: csv?.row(row())
        case .table, .line: sink.line(sentence())
        }
        sink.flush()
    }
}

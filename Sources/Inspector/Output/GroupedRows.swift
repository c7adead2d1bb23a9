/// Rows that belong to groups: history's changes, each in its transaction. JSON nests each
/// group's rows inside it, written by the command's own streaming writer (a transaction
/// may hold a million changes); a receiver of values (the MCP server) gets each row as one
/// record with its group nested in it; every other format shows the rows flat.
public final class GroupedRows {
    private enum Target {
        case receiver(ResultReceiver)
        case json
        case rows(RowWriter)
    }

    private let target: Target
    private let sink: OutputSink

    init(format: OutputFormat, sink: OutputSink, columns: [String]) {
        self.sink = sink
        if let receiver = sink.resultReceiver {
            target = .receiver(receiver)
        } else if format == .json {
            target = .json
        } else {
            target = .rows(RowWriter(columns: columns, format: format, sink: sink))
        }
    }

    /// One row, given in each of its forms (only the one shown is built): `record`, the row
    /// with its group nested; `json`, which writes the row (and a new group's head) into
    /// the nested JSON; `row`, the flat values under the columns. False when the receiver
    /// wants no more rows.
    public func add(record: () -> OutputValue, json: (OutputSink) -> Void, row: () -> [OutputValue]) -> Bool {
        add(record: record, json: json, rows: { [row()] })
    }

    /// One record that shows as several flat rows (an updated object, a row per change).
    public func add(record: () -> OutputValue, json: (OutputSink) -> Void, rows: () -> [[OutputValue]]) -> Bool {
        switch target {
        case .receiver(let receiver): return receiver.receive(record())
        case .json: json(sink)
        case .rows(let writer): rows().forEach(writer.row)
        }
        return true
    }

    /// What only the nested JSON has: a group's head or its end.
    public func json(_ write: (OutputSink) -> Void) {
        if case .json = target { write(sink) }
    }

    /// Ends the listing; `json` closes the nested JSON.
    public func finish(json: (OutputSink) -> Void) {
        switch target {
        case .receiver: break
        case .json: json(sink)
        case .rows(let writer): writer.finish()
        }
    }
}

/// Writes one record of named values (`info`, a single object) for `Results`: aligned `key: value`
/// lines for a table, an object in JSON, `key,value` rows in CSV.
enum RecordWriter {
    static func write(_ pairs: [(String, OutputValue)], format: OutputFormat, sink: OutputSink) {
        switch format {
        case .json:
            sink.line(OutputValue.object(pairs).jsonText)
        case .csv:
            sink.line("key,value")
            for (key, value) in pairs {
                sink.csvField(key)
                sink.byte(44)
                sink.csvField(value.text(sink.dateStyle))
                sink.byte(10)
            }
        case .line, .table:
            let width = pairs.map { $0.0.count }.max() ?? 0
            let separator = format == .line ? " = " : ": "
            for (key, value) in pairs {
                sink.line(key.padding(toLength: width, withPad: " ", startingAt: 0) + separator + value.text(sink.dateStyle))
            }
        }
    }
}

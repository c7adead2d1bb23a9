/// The output formats of every command: `table` for people, `json` and `csv` for programs,
/// `line` (one `key = value` per line) for wide rows.
public enum OutputFormat: String, CaseIterable, Sendable {
    case table, json, csv, line

    public init(parsing text: String) throws {
        guard let format = OutputFormat(rawValue: text.lowercased()) else {
            throw CommandError.usage("unknown format '\(text)' (use table, json, csv or line)")
        }
        self = format
    }
}

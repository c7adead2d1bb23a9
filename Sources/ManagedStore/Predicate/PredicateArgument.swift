/// What fills a format specifier (`%@`, `%K`, `%d`, `%f`) of a predicate, as the caller has
/// it: written in the predicate language (a command line's `--arg '"John"'`, read as a
/// literal for a value and as a key path for `%K`), or a value already typed (an MCP
/// client's JSON `"John"`, `30`, `true`, `null`), which is never written out as text and read
/// back. A typed string fills `%K` as a key path, as `NSPredicate(format:)` takes one.
public enum PredicateArgument: Sendable, Equatable {
    case written(String)
    case value(PredicateValue)

    /// The key path `%K` takes from it; nil for a typed value that is not a string.
    var keyPathText: String? {
        switch self {
        case .written(let text), .value(.string(let text)): return text
        case .value: return nil
        }
    }

    /// How an error message quotes it.
    var shown: String {
        switch self {
        case .written(let text): return text
        case .value(let value): return value.literalText
        }
    }
}

extension PredicateValue {
    /// The value as the predicate language writes it, for messages.
    var literalText: String {
        switch self {
        case .null: return "nil"
        case .bool(let b): return b ? "YES" : "NO"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return "\"" + s + "\""
        case .date(let d): return "CAST(\(d), \"NSDate\")"
        case .array(let items): return "{" + items.map(\.literalText).joined(separator: ", ") + "}"
        }
    }
}

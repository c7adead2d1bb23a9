/// Reading a value a command answered: what a program that takes the answers as values
/// (the web view, the MCP views, `profile`'s report) looks up in them.
extension OutputValue {
    /// The value under `key` of an object; nil for anything else.
    public subscript(key: String) -> OutputValue? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        switch self {
        case .string(let s), .objectID(let s): return s
        case .objectURI(let prefix, let key): return prefix + String(key)
        default: return nil
        }
    }

    public var intValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let d) where d.rounded() == d: return Int64(exactly: d)
        default: return nil
        }
    }

    public var items: [OutputValue] {
        if case .array(let items) = self { return items }
        return []
    }

    public var pairs: [(String, OutputValue)] {
        if case .object(let pairs) = self { return pairs }
        return []
    }
}

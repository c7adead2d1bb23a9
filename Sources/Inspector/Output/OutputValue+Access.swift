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

extension OutputValue {
    /// A table cell's text: object IDs short (`Person/p2`), the store being the one the table
    /// is about, where a whole `x-coredata://UUID/Person/p2` made columns hundreds wide; the
    /// other formats, for programs, keep the URI.
    func cellText(_ dates: DateStyle) -> String { shortened.text(dates) }

    private var shortened: OutputValue {
        switch self {
        case .objectURI(let prefix, let key): return .string(Self.shortObjectID(prefix) + String(key))
        case .objectID(let uri): return .string(Self.shortObjectID(uri))
        case .array(let items): return .array(items.map(\.shortened))
        case .object(let pairs): return .object(pairs.map { ($0.0, $0.1.shortened) })
        default: return self
        }
    }

    /// `Entity/pN` of an `x-coredata://UUID/Entity/pN` (or of its prefix); other text as it is.
    static func shortObjectID(_ uri: String) -> String {
        guard uri.hasPrefix("x-coredata://"), let slash = uri.dropFirst("x-coredata://".count).firstIndex(of: "/") else { return uri }
        return String(uri[uri.index(after: slash)...])
    }
}

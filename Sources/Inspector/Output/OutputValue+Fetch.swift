import ManagedStore

extension OutputValue {
    /// An attribute value as the user sees it: UUIDs and URIs as text, transformables by
    /// their summary, externally stored data by the file holding it.
    public init(_ value: AttributeValue) {
        switch value {
        case .null: self = .null
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(s)
        case .date(let d): self = .date(d)
        case .data(let bytes): self = .data(bytes)
        case .uuid(let uuid): self = .string(uuid.uuidString)
        case .uri(let uri): self = .string(uri)
        case .transformable(let summary, _): self = .string(summary)
        case .externalFile(let path, let exists): self = .string("<external data \(path)\(exists ? "" : ", missing")>")
        }
    }

    public init(_ value: FetchedValue) {
        switch value {
        case .attribute(let a): self.init(a)
        case .object(let id): self = id.map { .objectID($0.uri) } ?? .null
        }
    }
}

extension OutputValue {
    /// A bound SQL value as `explain` shows it.
    public init(_ value: StoredValue) {
        switch value {
        case .null: self = .null
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .real(d)
        case .text(let s): self = .string(s)
        case .blob(let b): self = .data(b)
        }
    }

    /// Strings quoted, so that `'30'` and `30` can be told apart.
    var bindText: String {
        switch self {
        case .string(let s): return JSON.quote(s)
        case .null: return "nil"
        default: return text
        }
    }
}

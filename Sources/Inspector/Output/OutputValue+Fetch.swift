import Foundation
import ManagedStore

extension OutputValue {
    /// An attribute value as the user sees it: UUIDs and URIs as text, transformables
    /// decoded (or, `rawArchives`, as their bytes), externally stored data by the file holding it.
    public init(_ value: AttributeValue, rawArchives: Bool = false) {
        switch value {
        case .null: self = .null
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(s)
        case .date(let d): self = .date(d)
        case .data(let bytes): self = .data(bytes)
        case .uuid(let uuid): self = .uuid(uuid)
        case .uri(let uri): self = .string(uri)
        case .transformable(let summary, let bytes): self = rawArchives ? .data(bytes) : .archive(summary: summary, bytes: bytes)
        case .externalFile(let path, let exists): self = .string("<external data \(path)\(exists ? "" : ", missing")>")
        case .json(let bytes): self = .json(bytes)
        }
    }

    /// A managed object's property: to-many relationships as arrays of object IDs. One
    /// value at a time (`get`, `changes`, watch); it is `ShownValues`' conversion, which a
    /// fetch keeps for all its rows, so that both show a value the same way.
    public init(_ value: ObjectValue, rawArchives: Bool = false) {
        var shown = ShownValues(rawArchives: rawArchives)
        self = shown.value(value)
    }

    /// A transformable's bytes decoded as Foundation would unarchive them; bytes that are no
    /// archive (a custom transformer's own format) stay bytes, shown as base64.
    public init(archiveBytes bytes: [UInt8]) {
        if let value = try? KeyedUnarchiver.value(of: bytes) { self.init(value) } else { self = .data(bytes) }
    }

    public init(_ value: ArchivedValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .real(d)
        case .string(let s): self = .string(s)
        case .date(let d): self = .date(d)
        case .data(let bytes): self = .data(bytes)
        case .array(let items): self = .array(items.map(OutputValue.init))
        case .dictionary(let entries): self = .object(entries.map { ($0.key, OutputValue($0.value)) })
        case .object(let className, let fields):
            self = .object([("$class", .string(className))] + fields.map { ($0.key, OutputValue($0.value)) })
        case .cycle(let index): self = .object([("$ref", .integer(Int64(index)))])
        }
    }

    /// Upper-case hex with dashes, as `uuidString`.
    static func uuidText(_ uuid: UUID) -> String {
        withUUIDText(uuid) { String(decoding: $0, as: UTF8.self) }
    }

    /// Hands the 36 bytes of `uuidString` to `body` from a buffer on the stack: it runs once
    /// per row, so output copies them without making a String.
    static func withUUIDText<R>(_ uuid: UUID, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var storage: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &storage) { raw in
            let out = raw.bindMemory(to: UInt8.self)
            let hex: StaticString = "0123456789ABCDEF"
            var n = 0
            withUnsafeBytes(of: uuid.uuid) { bytes in
                for (i, byte) in bytes.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 { out[n] = 45; n += 1 }
                    out[n] = hex.utf8Start[Int(byte >> 4)]
                    out[n + 1] = hex.utf8Start[Int(byte & 0xF)]
                    n += 2
                }
            }
            return body(UnsafeBufferPointer(rebasing: out[..<n]))
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

extension OutputValue {
    /// An object whose composite attributes' leaves (`address.city`, named in `leaves`) are
    /// nested in their composite (`"address": {"city": …}`), as the app's dictionary holds them.
    static func nesting(_ pairs: [(String, OutputValue)], leaves: Set<String>) -> OutputValue {
        var nested: [(String, OutputValue)] = []
        func insert(_ path: ArraySlice<Substring>, _ value: OutputValue, into pairs: inout [(String, OutputValue)]) {
            let key = String(path.first ?? "")
            guard path.count > 1 else { pairs.append((key, value)); return }
            // Into the composite's object made by an earlier leaf, else a new one.
            let found = pairs.firstIndex { pair in
                if case .object = pair.1 { return pair.0 == key }
                return false
            }
            let i = found ?? pairs.endIndex
            if found == nil { pairs.append((key, .object([]))) }
            guard case .object(var inner) = pairs[i].1 else { return }
            insert(path.dropFirst(), value, into: &inner)
            pairs[i].1 = .object(inner)
        }
        for (key, value) in pairs {
            if leaves.contains(key) { insert(key.split(separator: ".")[...], value, into: &nested) } else { nested.append((key, value)) }
        }
        return .object(nested)
    }
}

extension OutputValue {
    /// The value with each transformable's archive decoded as JSON shows it, so that a row's
    /// text and its MCP value are made from one decoding rather than one each.
    public var archivesDecoded: OutputValue {
        switch self {
        case .archive(_, let bytes): return OutputValue(archiveBytes: bytes)
        case .array(let items): return .array(items.map(\.archivesDecoded))
        case .object(let pairs): return .object(pairs.map { ($0.0, $0.1.archivesDecoded) })
        default: return self
        }
    }
}

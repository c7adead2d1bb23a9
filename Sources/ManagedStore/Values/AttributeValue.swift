import Foundation
import GRDB

/// An attribute's value as the app would see it, decoded from its SQL storage.
public enum AttributeValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case string(String)
    /// Seconds since 2001-01-01 00:00:00 UTC (Core Data's reference date).
    case date(Double)
    case data([UInt8])
    case uuid(UUID)
    case uri(String)
    /// A transformable value: Linux has not the app's transformer, so the bytes plus what can
    /// be said of them (the root class of a keyed archive).
    case transformable(summary: String, bytes: [UInt8])
    /// External binary storage: the file Core Data keeps the bytes in, and whether it is there.
    case externalFile(path: String, exists: Bool)
    /// JSON text as SwiftData stores a Codable value (an array inside a composite, a
    /// codable attribute): the stored bytes, kept as they are so that a value read and
    /// written back leaves the column byte-identical.
    case json([UInt8])
}

/// What a column holds, before the model says what it means.
public enum StoredValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension StoredValue {
    /// A value as GRDB read it from a column.
    public init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let data): self = .blob([UInt8](data))
        }
    }
}

/// Turns stored column values into attribute values by the model's attribute type.
public enum AttributeValueDecoder {
    public static func decode(_ stored: StoredValue, as attribute: AttributeDescription, store: StoreFile?) -> AttributeValue {
        decode(stored, type: attribute.type, external: attribute.allowsExternalBinaryDataStorage, json: attribute.holdsJSON, store: store)
    }

    /// `external`: the attribute allows external binary storage, so its blob carries a tag.
    public static func decode(_ stored: StoredValue, type: AttributeType, external: Bool, json: Bool = false,
                              store: StoreFile?) -> AttributeValue {
        if case .null = stored { return .null }
        if json, case .blob(let bytes) = stored, JSONText.isValid(bytes) { return .json(bytes) }
        switch type {
        case .boolean:
            switch stored {
            case .integer(let i): return .bool(i != 0)
            case .real(let d): return .bool(d != 0)
            default: return raw(stored)
            }
        case .integer16, .integer32, .integer64:
            if case .real(let d) = stored, d.rounded() == d, abs(d) < 9.2e18 { return .integer(Int64(d)) }
            return raw(stored)
        case .double, .float, .decimal:
            if case .integer(let i) = stored { return .double(Double(i)) }
            return raw(stored)
        case .date:
            switch stored {
            case .integer(let i): return .date(Double(i))
            case .real(let d): return .date(d)
            default: return raw(stored)
            }
        case .uuid:
            if case .blob(let bytes) = stored, let uuid = UUID(bytes: bytes) { return .uuid(uuid) }
            if case .text(let s) = stored, let uuid = UUID(uuidString: s) { return .uuid(uuid) }
            return raw(stored)
        case .uri:
            if case .text(let s) = stored { return .uri(s) }
            return raw(stored)
        case .transformable:
            if case .blob(let bytes) = stored { return .transformable(summary: summarize(bytes), bytes: bytes) }
            return raw(stored)
        case .binaryData where external:
            guard case .blob(let bytes) = stored, let tag = bytes.first else { return raw(stored) }
            switch tag {
            case 0x01:
                return .data(Array(bytes.dropFirst()))
            case 0x02:
                let name = String(decoding: bytes.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
                let path = store.map { externalDataPath(for: $0.path, name: name) } ?? name
                return .externalFile(path: path, exists: FileManager.default.fileExists(atPath: path))
            default:
                return .data(bytes)
            }
        default:
            return raw(stored)
        }
    }

    static func raw(_ stored: StoredValue) -> AttributeValue {
        switch stored {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .double(d)
        case .text(let s): return .string(s)
        case .blob(let b): return .data(b)
        }
    }

    /// Core Data keeps externally stored data in `.<store name>_SUPPORT/_EXTERNAL_DATA/<UUID>`
    /// beside the store.
    public static func externalDataPath(for storePath: String, name: String) -> String {
        StoreCompanions(storePath: storePath).externalData.appendingPathComponent(name).path
    }

    /// A keyed archive says its root object's class (or is a bare string or number, which
    /// is shown); anything else is described by its size.
    public static func summarize(_ bytes: [UInt8]) -> String {
        if let plist = try? BinaryPropertyList.decode(bytes), let archive = try? KeyedArchive(plist) {
            switch archive.objects[archive.root] {
            case .string(let s): return "<NSString \"\(s)\", \(bytes.count) bytes>"
            case .integer(let i): return "<NSNumber \(i), \(bytes.count) bytes>"
            case .real(let d): return "<NSNumber \(d), \(bytes.count) bytes>"
            default:
                if let className = archive.className(of: archive.root) {
                    let text = archive.string(archive.root, "NS.relative") ?? archive.string(archive.root, "NS.string")
                    return "<\(className)\(text.map { " \"\($0)\"" } ?? ""), \(bytes.count) bytes>"
                }
            }
        }
        if bytes.starts(with: Array("bplist00".utf8)) { return "<property list, \(bytes.count) bytes>" }
        return "<\(bytes.count) bytes>"
    }
}

extension UUID {
    /// A UUID from its 16 raw bytes, as a UUID column and an archived `NSUUID` store it.
    init?(bytes b: [UInt8]) {
        guard let uuid = b.withUnsafeBytes(UUID.init(raw:)) else { return nil }
        self = uuid
    }

    /// The same from bytes in place (a column SQLite holds), without copying them first.
    init?(raw b: UnsafeRawBufferPointer) {
        guard b.count == 16 else { return nil }
        var value = uuid_t(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: b) }
        self.init(uuid: value)
    }
}

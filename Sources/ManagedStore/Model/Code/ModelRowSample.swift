import Foundation
import GRDB

/// What the rows say where the model says less than the app's Swift types do: the raw values
/// an enum SwiftData keeps as a one-element composite has been given (the model does not list
/// its cases), and the JSON a composite's Binary element or a codable attribute holds (the
/// model says Binary; the app's type is an array or a Codable struct). Read once per attribute
/// from the store, distinct values only, a bounded number of them.
struct ModelRowSample {
    let store: PersistentStore
    /// How many distinct values are read of one attribute.
    static let limit = 100

    /// The distinct non-nil values of `keyPath` (an attribute, or a composite's leaf such as
    /// `ice.ice`) among `entity`'s rows, in SQLite's order; empty where the store has no column.
    func values(_ entity: String, _ keyPath: String) -> [DatabaseValue] {
        guard let mapping = store.mapping.entity(named: entity), let column = mapping.attribute(keyPath)?.column else { return [] }
        let c = SQL.identifier(column)
        var filter = ""
        if mapping.tableHasSubentities, let entityColumn = mapping.entityColumn {
            filter = " AND \(SQL.identifier(entityColumn)) IN (\(mapping.entityIDs.map(String.init).joined(separator: ", ")))"
        }
        let sql = "SELECT DISTINCT \(c) FROM \(SQL.identifier(mapping.table)) WHERE \(c) IS NOT NULL\(filter) ORDER BY 1 LIMIT \(Self.limit)"
        return (try? store.reader.read { try DatabaseValue.fetchAll($0, sql: sql) }) ?? []
    }

    /// The shape of the JSON the rows hold at `keyPath`, merged over every value; nil when
    /// no row holds JSON there.
    func jsonShape(_ entity: String, _ keyPath: String) -> JSONShape? {
        var shape: JSONShape?
        for value in values(entity, keyPath) {
            let bytes: Data
            switch value.storage {
            case .blob(let data): bytes = data
            case .string(let s): bytes = Data(s.utf8)
            default: continue
            }
            guard let seen = JSONShape(json: [UInt8](bytes)) else { continue }
            shape = shape.map { $0.merged(with: seen) } ?? seen
        }
        return shape
    }
}

/// The shape of JSON values, as Swift's Codable would decode them: merged over several values,
/// a key some lack becomes optional and numbers some write with a fraction become Double.
indirect enum JSONShape: Equatable {
    case string, integer, double, boolean, null
    /// Elements of the shape merged over every array seen; nil when every array was empty.
    case array(JSONShape?)
    /// Members by key, in the order first seen, each with whether some value lacked it.
    case object([Member])
    /// Values of different kinds: no one Swift type decodes them all.
    case mixed

    struct Member: Equatable {
        var key: String
        var shape: JSONShape
        var optional: Bool
    }

    /// The shape of one JSON value; nil when the bytes are no JSON (a `Data` property's own
    /// bytes in a Binary element) or nest deeper than `JSONText` walks.
    init?(json bytes: [UInt8]) {
        guard JSONText.isValid(bytes) else { return nil }
        var reader = ShapeReader(bytes: bytes)
        guard let shape = reader.value(depth: 0) else { return nil }
        self = shape
    }

    func merged(with other: JSONShape) -> JSONShape {
        switch (self, other) {
        case _ where self == other: return self
        case (.integer, .double), (.double, .integer): return .double
        case (.null, _): return other
        case (_, .null): return self
        case (.array(let a), .array(let b)):
            guard let a else { return .array(b) }
            guard let b else { return .array(a) }
            return .array(a.merged(with: b))
        case (.object(let a), .object(let b)):
            var members = a
            for m in b {
                if let i = members.firstIndex(where: { $0.key == m.key }) {
                    members[i].shape = members[i].shape.merged(with: m.shape)
                    members[i].optional = members[i].optional || m.optional
                } else {
                    members.append(Member(key: m.key, shape: m.shape, optional: true))
                }
            }
            for i in members.indices where !b.contains(where: { $0.key == members[i].key }) { members[i].optional = true }
            return .object(members)
        default: return .mixed
        }
    }
}

/// Reads the shape of JSON already known to be valid (`JSONText.isValid`): only object keys
/// are decoded, everything else is passed over.
private struct ShapeReader {
    let bytes: [UInt8]
    var at = 0

    mutating func skipSpace() { while at < bytes.count, [32, 9, 10, 13].contains(bytes[at]) { at += 1 } }

    mutating func value(depth: Int) -> JSONShape? {
        guard depth < JSONText.maximumDepth else { return nil }
        skipSpace()
        guard at < bytes.count else { return nil }
        switch bytes[at] {
        case UInt8(ascii: "{"):
            at += 1
            var members: [JSONShape.Member] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object([]) }
            while at < bytes.count {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                at += 1  // :
                guard let shape = value(depth: depth + 1) else { return nil }
                if let i = members.firstIndex(where: { $0.key == key }) { members[i].shape = shape } else {
                    members.append(JSONShape.Member(key: key, shape: shape, optional: false))
                }
                skipSpace()
                guard at < bytes.count else { return nil }
                at += 1
                if bytes[at - 1] == UInt8(ascii: "}") { return .object(members) }
            }
            return nil
        case UInt8(ascii: "["):
            at += 1
            var element: JSONShape?
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(nil) }
            while at < bytes.count {
                guard let shape = value(depth: depth + 1) else { return nil }
                element = element.map { $0.merged(with: shape) } ?? shape
                skipSpace()
                guard at < bytes.count else { return nil }
                at += 1
                if bytes[at - 1] == UInt8(ascii: "]") { return .array(element) }
            }
            return nil
        case UInt8(ascii: "\""):
            return string() == nil ? nil : .string
        case UInt8(ascii: "t"): at += 4; return .boolean
        case UInt8(ascii: "f"): at += 5; return .boolean
        case UInt8(ascii: "n"): at += 4; return .null
        default:
            var fraction = false
            while at < bytes.count, let c = Optional(bytes[at]), c == 45 || c == 43 || c == 46 || c == 69 || c == 101 || (48...57).contains(c) {
                if c == 46 || c == 69 || c == 101 { fraction = true }
                at += 1
            }
            return fraction ? .double : .integer
        }
    }

    /// A string at `at`, its escapes decoded.
    mutating func string() -> String? {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
        at += 1
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flush() { scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars); raw = [] }
        while at < bytes.count {
            let c = bytes[at]
            at += 1
            if c == UInt8(ascii: "\"") { flush(); return String(scalars) }
            guard c == UInt8(ascii: "\\"), at < bytes.count else { raw.append(c); continue }
            let e = bytes[at]
            at += 1
            switch e {
            case UInt8(ascii: "n"): raw.append(10)
            case UInt8(ascii: "t"): raw.append(9)
            case UInt8(ascii: "r"): raw.append(13)
            case UInt8(ascii: "b"): raw.append(8)
            case UInt8(ascii: "f"): raw.append(12)
            case UInt8(ascii: "u"):
                guard at + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else { return nil }
                at += 4
                flush()
                scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
            default: raw.append(e)
            }
        }
        return nil
    }
}

/// A value read out of an archived object graph, as Foundation would hand it to the app:
/// the matching Swift/JSON shape for Foundation types, and an app's own classes by name
/// with their archived fields (their code is not on this machine, so this is all there is).
public indirect enum ArchivedValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    /// Seconds since 2001-01-01 00:00:00 UTC, as `NSDate` archives them.
    case date(Double)
    case data([UInt8])
    case array([ArchivedValue])
    /// An `NSDictionary`, or the named parts of a value type (a point's x and y, a colour's
    /// components); keys that are not strings are shown as their text.
    case dictionary([Entry])
    /// An instance of a class this reader does not model, with the fields it archived.
    case object(className: String, fields: [Entry])
    /// A reference back to an object that contains it (archives may hold cycles): the
    /// index of that object in the archive.
    case cycle(Int)

    public struct Entry: Sendable, Equatable {
        public let key: String
        public let value: ArchivedValue
        public init(_ key: String, _ value: ArchivedValue) {
            self.key = key
            self.value = value
        }
    }
}

extension ArchivedValue {
    /// A property list's scalar as it is; nil for references and collections.
    init?(scalar: PropertyListValue) {
        switch scalar {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .real(d)
        case .date(let d): self = .date(d)
        case .data(let d): self = .data(d)
        case .string(let s): self = .string(s)
        case .uid, .array, .dictionary: return nil
        }
    }
}

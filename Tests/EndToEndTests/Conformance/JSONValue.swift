import Foundation

/// The conformance files' JSON, kept typed: booleans apart from numbers, integers apart
/// from reals, and `{"$date": …}` recognised.
indirect enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    var string: String? { if case .string(let s) = self { return s }; return nil }

    /// `{"$date": ISO-8601 or Unix seconds}` as seconds since 2001-01-01.
    var referenceDate: Double? {
        guard case .object(let o) = self, o.count == 1, let raw = o["$date"] else { return nil }
        switch raw {
        case .integer(let i): return Double(i) - 978_307_200
        case .double(let d): return d - 978_307_200
        case .string(let s):
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = s.contains(".") ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
            return formatter.date(from: s)?.timeIntervalSinceReferenceDate
        default: return nil
        }
    }

    /// Written in the predicate language, as `--arg` and `--var` take values.
    var literal: String {
        if let date = referenceDate { return "CAST(\(date), \"NSDate\")" }
        switch self {
        case .null: return "nil"
        case .bool(let b): return b ? "YES" : "NO"
        case .integer(let i): return String(i)
        case .double(let d): return "\(d)"
        case .string(let s): return JSONValue.quoted(s)
        case .array(let items): return "{" + items.map(\.literal).joined(separator: ", ") + "}"
        case .object: return "nil"
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

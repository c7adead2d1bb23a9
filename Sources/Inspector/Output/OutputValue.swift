import Foundation

/// A value on its way to the user, typed so that each format can render it properly
/// (JSON numbers stay numbers, dates become ISO 8601, binary becomes base64).
public enum OutputValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    /// Seconds since 2001-01-01 00:00:00 UTC, Core Data's reference date.
    case date(Double)
    case data([UInt8])
    case objectID(String)
    case array([OutputValue])
    case object([(String, OutputValue)])

    public static func == (lhs: OutputValue, rhs: OutputValue) -> Bool {
        lhs.text == rhs.text && lhs.jsonText == rhs.jsonText
    }

    static let referenceDateOffset: Double = 978_307_200

    public static func isoDate(_ referenceSeconds: Double) -> String {
        let date = Date(timeIntervalSince1970: referenceSeconds + referenceDateOffset)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let hasFraction = referenceSeconds.rounded() != referenceSeconds
        formatter.formatOptions = hasFraction ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter.string(from: date)
    }

    static func formatReal(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d.rounded() == d && abs(d) < 1e15 { return String(format: "%.1f", d) }
        return "\(d)"
    }

    /// Plain text for table, CSV and line output.
    public var text: String {
        switch self {
        case .null: return "NULL"
        case .bool(let b): return b ? "YES" : "NO"
        case .integer(let i): return String(i)
        case .real(let d): return OutputValue.formatReal(d)
        case .string(let s): return s
        case .date(let d): return OutputValue.isoDate(d)
        case .data(let bytes): return Data(bytes).base64EncodedString()
        case .objectID(let id): return id
        case .array(let items): return items.map(\.text).joined(separator: ", ")
        case .object(let pairs): return pairs.map { "\($0.0)=\($0.1.text)" }.joined(separator: ", ")
        }
    }

    public var jsonText: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .real(let d): return d.isFinite ? OutputValue.formatReal(d) : JSON.quote(OutputValue.formatReal(d))
        case .string(let s): return JSON.quote(s)
        case .date(let d): return JSON.quote(OutputValue.isoDate(d))
        case .data(let bytes): return JSON.quote(Data(bytes).base64EncodedString())
        case .objectID(let id): return JSON.quote(id)
        case .array(let items): return "[" + items.map(\.jsonText).joined(separator: ", ") + "]"
        case .object(let pairs): return "{" + pairs.map { JSON.quote($0.0) + ": " + $0.1.jsonText }.joined(separator: ", ") + "}"
        }
    }
}

enum JSON {
    static func quote(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

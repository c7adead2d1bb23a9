import Foundation
import GRDB

/// An incoming value in its column's storage form, as a context save stores the same
/// value: dates as seconds since 2001, Booleans as 0 or 1, UUIDs as their 16 bytes, binary
/// data that may be stored externally behind its `01` tag, JSON as its bytes. A value the
/// attribute cannot hold is refused with the reason, for the rejection.
enum ImportValue {
    struct Refusal: Error {
        let why: String
    }

    /// A JSON value (as `fetch --format json` and `export` print it).
    static func stored(_ value: JSONReader.Value, _ a: AttributeDescription) throws(Refusal) -> DatabaseValue {
        if case .null = value { return .null }
        if a.holdsJSON {
            guard case .raw(let bytes) = value else { throw Refusal(why: "\(a.name) expects JSON") }
            if let data = dataBehindJSON(bytes, a) { return try checked(data.databaseValue, a) }
            return try checked(Data(bytes).databaseValue, a)
        }
        switch (value, a.type) {
        case (.string(let s), _): return try fromText(s, quoted: true, a)
        case (.number(let n), .integer16), (.number(let n), .integer32), (.number(let n), .integer64),
             (.number(let n), .double), (.number(let n), .float), (.number(let n), .decimal), (.number(let n), .date),
             (.number(let n), .boolean), (.number(let n), .undefined):
            return try fromText(n, quoted: false, a)
        case (.bool(let b), .boolean), (.bool(let b), .undefined):
            return Int64(b ? 1 : 0).databaseValue
        default:
            throw Refusal(why: "\(a.name) is \(a.type.withArticle), not \(describe(value))")
        }
    }

    static func describe(_ value: JSONReader.Value) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a Boolean"
        case .number(let n): return n
        case .string: return "text"
        case .array: return "an array"
        case .object: return "an object"
        case .raw: return "JSON"
        }
    }

    /// A CSV field's value from its bytes. Integers, Booleans, UUIDs and ISO dates are read
    /// from the bytes themselves; other values go through their text. Bytes that are not
    /// UTF-8 refuse the row.
    static func fromBytes(_ bytes: ArraySlice<UInt8>, quoted: Bool, _ attribute: ImportAttribute) throws(Refusal) -> DatabaseValue {
        if bytes.isEmpty && !quoted { return .null }
        if !attribute.holdsJSON {
            switch attribute.type {
            case .integer16, .integer32, .integer64:
                if let i = integer(bytes) {
                    if let range = attribute.type.integerRange, !range.contains(i) { return try checked(i.databaseValue, attribute.description) }
                    return i.databaseValue
                }
            case .uuid:
                if let uuid = uuidData(bytes) { return uuid.databaseValue }
            case .date:
                if let seconds = ISODate.seconds(bytes) { return seconds.databaseValue }
            case .boolean where bytes.count == 1 && (bytes.first == 48 || bytes.first == 49):
                return Int64(bytes.first == 49 ? 1 : 0).databaseValue
            default:
                break
            }
        }
        let text: String
        if bytes.allSatisfy({ $0 < 0x80 }) {
            text = String(decoding: bytes, as: UTF8.self)
        } else {
            guard let decoded = String(bytes: bytes, encoding: .utf8) else { throw Refusal(why: "\(attribute.name) is not valid UTF-8") }
            text = decoded
        }
        return try fromText(text, quoted: quoted, attribute.description)
    }

    /// Plain decimal digits with an optional minus sign; nil for anything else (spaces,
    /// a fraction, an exponent), which the text path reads.
    static func integer(_ bytes: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        var negative = false
        var digits = 0
        for (i, b) in bytes.enumerated() {
            if i == 0 && b == 45 { negative = true; continue }
            guard b >= 48 && b <= 57 else { return nil }
            digits += 1
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times.subtractingReportingOverflow(Int64(b - 48)) : times.addingReportingOverflow(Int64(b - 48))
            guard !o1 && !o2 else { return nil }
            value = sum
        }
        return digits > 0 ? value : nil
    }

    /// A value given as text: a CSV field, or a JSON string. An unquoted empty field is nil.
    static func fromText(_ text: String, quoted: Bool, _ a: AttributeDescription) throws(Refusal) -> DatabaseValue {
        if text.isEmpty && !quoted { return .null }
        func bad(_ expects: String) -> Refusal { Refusal(why: "\(a.name) expects \(expects), not \(quote(text))") }
        let trimmed = trim(text)
        let stored: DatabaseValue
        if a.holdsJSON {
            guard JSONText.isValid(Array(text.utf8)) else { throw bad("JSON text") }
            stored = Data(text.utf8).databaseValue
            return try checked(stored, a)
        }
        switch a.type {
        case .string:
            stored = text.databaseValue
        case .uri:
            stored = text.databaseValue
        case .integer16, .integer32, .integer64:
            if let i = Int64(trimmed) {
                stored = i.databaseValue
            } else if let d = Double(trimmed), d.isFinite, d.rounded() == d, let i = Int64(exactly: d) {
                stored = i.databaseValue
            } else {
                throw bad("an integer")
            }
        case .double, .float, .decimal:
            guard let d = Double(trimmed) else { throw bad("a number") }
            stored = d.databaseValue
        case .boolean:
            switch trimmed.lowercased() {
            case "1", "true", "yes": stored = Int64(1).databaseValue
            case "0", "false", "no": stored = Int64(0).databaseValue
            default: throw bad("true or false")
            }
        case .date:
            if let seconds = Double(trimmed) {
                stored = seconds.databaseValue
            } else if let date = ISODate.seconds(trimmed) ?? ValueParsing.parseDate(trimmed) {
                stored = date.databaseValue
            } else {
                throw bad("a date (ISO 8601, or seconds since 2001-01-01)")
            }
        case .uuid:
            guard let data = uuidData(ArraySlice(trimmed.utf8)) else { throw bad("a UUID") }
            stored = data.databaseValue
        case .binaryData, .transformable:
            guard let data = Data(base64Encoded: trimmed) else { throw bad("base64 text") }
            stored = (a.type == .binaryData && a.allowsExternalBinaryDataStorage ? Data([0x01]) + data : data).databaseValue
        case .undefined:
            if let i = Int64(trimmed) { stored = i.databaseValue } else if let d = Double(trimmed), !quoted { stored = d.databaseValue } else {
                stored = text.databaseValue
            }
        default:
            throw Refusal(why: "\(a.name) is \(a.type.withArticle), whose values cannot be imported")
        }
        return try checked(stored, a)
    }

    /// Spaces and tabs taken off both ends; the text itself when it has none, as almost
    /// every field has (Foundation's trimming costs a bridged copy of every value).
    static func trim(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last else { return text }
        guard first == 32 || first == 9 || last == 32 || last == 9 else { return text }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A UUID's 16 bytes from its text (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, either case),
    /// written straight into the blob's storage.
    static func uuidData(_ utf8: ArraySlice<UInt8>) -> Data? {
        guard utf8.count == 36 else { return nil }
        var data = Data(count: 16)
        let ok = data.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
            var written = 0
            var high: UInt8?
            var count = 0
            for c in utf8 {
                count += 1
                if c == 45 {
                    guard count == 9 || count == 14 || count == 19 || count == 24, high == nil else { return false }
                    continue
                }
                let digit: UInt8
                switch c {
                case 48...57: digit = c - 48
                case 65...70: digit = c - 55
                case 97...102: digit = c - 87
                default: return false
                }
                if let h = high {
                    guard written < 16 else { return false }
                    out[written] = h << 4 | digit
                    written += 1
                    high = nil
                } else {
                    high = digit
                }
            }
            return written == 16 && high == nil
        }
        return ok ? data : nil
    }

    /// A composite's Binary element holds JSON, or a `Data` property's own bytes, which export
    /// writes as base64 because they are no JSON: a JSON string whose base64 decodes to bytes
    /// that are no JSON text is those bytes. (Bytes that are JSON were exported as JSON.)
    static func dataBehindJSON(_ bytes: [UInt8], _ a: AttributeDescription) -> Data? {
        guard a.type == .binaryData, bytes.first == 34, bytes.last == 34, bytes.count >= 2,
              let text = String(bytes: bytes.dropFirst().dropLast(), encoding: .utf8), !text.contains("\\"),
              let data = Data(base64Encoded: text), !JSONText.isValid([UInt8](data)) else { return nil }
        return data
    }

    private static func checked(_ value: DatabaseValue, _ a: AttributeDescription) throws(Refusal) -> DatabaseValue {
        if let why = StoredValueRule(attribute: a).violation(StoredValue(value)) { throw Refusal(why: why) }
        return value
    }

    static func quote(_ text: String) -> String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "\"\(shown)\""
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` and `YYYY-MM-DD` (UTC) read without a formatter: a
/// CSV of a million dates would otherwise make a million formatter calls. Other forms (an
/// offset instead of `Z`) fall back to Foundation's parser.
enum ISODate {
    static func seconds(_ text: String) -> Double? { seconds(ArraySlice(text.utf8)) }

    static func seconds(_ utf8: ArraySlice<UInt8>) -> Double? {
        let count = utf8.count
        guard count == 10 || (count >= 20 && utf8.last == 90) else { return nil }
        let base = utf8.startIndex
        func byte(_ i: Int) -> UInt8 { utf8[base + i] }
        func digits(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                let d = Int(byte(i)) - 48
                guard d >= 0 && d <= 9 else { return nil }
                n = n * 10 + d
            }
            return n
        }
        guard byte(4) == 45, byte(7) == 45, let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = 0.0
        if count > 10 {
            guard byte(10) == 84, byte(13) == 58, byte(16) == 58, let h = digits(11..<13), let m = digits(14..<16), let s = digits(17..<19),
                  h < 24, m < 60, s < 61 else { return nil }
            seconds = Double(h * 3600 + m * 60 + s)
            // Between the seconds and the Z: nothing, or a dot and the fraction's digits.
            if count > 20 {
                let fraction = utf8[(base + 20)..<(base + count - 1)]
                guard byte(19) == 46, !fraction.isEmpty, fraction.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                      let value = Double("0." + String(decoding: fraction, as: UTF8.self)) else { return nil }
                seconds += value
            } else if byte(19) != 90 {
                return nil
            }
        }
        // Days from 1970-01-01 (Howard Hinnant's days_from_civil), then from 2001-01-01.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Double(days - 11323) * 86400 + seconds
    }
}

/// How import reads a date's text, for export to check that its text reads back.
public enum ImportDates {
    /// True when `text` reads back, as import reads it, to exactly `seconds`.
    public static func readsBack(_ seconds: Double, _ text: String) -> Bool {
        (ISODate.seconds(text) ?? ValueParsing.parseDate(text)) == seconds
    }
}

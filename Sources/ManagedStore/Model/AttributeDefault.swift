import Foundation

/// An attribute's default as Core Data holds it. A model file gives a default as text
/// (`defaultValueString`, and `defaultDateTimeInterval` for a date); Xcode's compiler turns it
/// into a value of the attribute's type with that type's own parse of a string, as
/// `NSString`'s `integerValue`, `doubleValue` and `boolValue` read one. It never refuses one:
/// text that is not a number is 0.
///
/// Evidence: Wire's `Conversation.mutedStatus`, `Integer 32` with `defaultValueString="NO"`,
/// is `NSDefaultValue` 0 (an `NSNumber`) in every cache Core Data wrote from that model, and 0
/// in every row of the stores it migrated; its Booleans' `YES`/`NO` are 1/0 and its Doubles'
/// `0` is 0.0. Every default a command reads (create's cache, `migrate`, `import`, a
/// session's insert) comes from here, so they all agree with the app.
public enum AttributeDefault {
    /// The value an object of this attribute starts with, nil where the model gives none (or
    /// gives one of a type this reader does not build: binary data, a transformable).
    public static func value(of a: AttributeDescription) -> AttributeValue? {
        guard let text = a.defaultValue, !a.isDerived else { return nil }
        switch a.type {
        case .integer16, .integer32, .integer64:
            return .integer(integerValue(text))
        case .double, .float, .decimal:
            return .double(doubleValue(text))
        case .boolean:
            return .bool(boolValue(text))
        case .string:
            return .string(text)
        case .date:
            // `defaultDateTimeInterval`: seconds since 2001, as Core Data stores a date.
            return .date(doubleValue(text))
        case .uuid:
            return UUID(uuidString: text).map(AttributeValue.uuid)
        case .uri:
            return .uri(text)
        default:
            return nil
        }
    }

    /// The default written back as a model file spells it, one spelling per value (`NO` and `0`
    /// of a Boolean are both `NO`; `NO` of an integer is `0`): a cache holds the value, not
    /// the text, so a model read from the file and the same model read from the cache write
    /// the same file. Text this reader does not turn into a value is kept as it is.
    public static func text(of a: AttributeDescription) -> String? {
        guard let text = a.defaultValue else { return nil }
        switch (a.type, value(of: a)) {
        case (.decimal, _): return text
        case (_, .integer(let i)?): return String(i)
        case (_, .double(let d)?), (_, .date(let d)?): return String(d)
        case (_, .bool(let b)?): return b ? "YES" : "NO"
        case (_, .uuid(let u)?): return u.uuidString
        default: return text
        }
    }

    /// `NSString.integerValue`: leading white space, an optional sign, then decimal digits
    /// up to the first other character; no digits is 0. Saturates, as Foundation's scanner does.
    static func integerValue(_ text: String) -> Int64 {
        var bytes = Substring(text).utf8.drop(while: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) })
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { break }
            let digit = Int64(byte - 0x30)
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            if o1 || o2 { return negative ? .min : .max }
            value = sum
        }
        return value
    }

    /// `NSString.doubleValue`: the longest leading decimal number (`strtod` without hex,
    /// infinities or NaN), 0 where there is none.
    static func doubleValue(_ text: String) -> Double {
        let trimmed = Substring(text).drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        var best = trimmed.startIndex
        var sawDigit = false, sawPoint = false, sawExponent = false
        var index = trimmed.startIndex
        if index < trimmed.endIndex, trimmed[index] == "+" || trimmed[index] == "-" { index = trimmed.index(after: index) }
        while index < trimmed.endIndex {
            let c = trimmed[index]
            if c.isASCII, c.isNumber {
                sawDigit = true
                best = trimmed.index(after: index)
            } else if c == ".", !sawPoint, !sawExponent {
                sawPoint = true
            } else if c == "e" || c == "E", sawDigit, !sawExponent {
                sawExponent = true
                let next = trimmed.index(after: index)
                if next < trimmed.endIndex, trimmed[next] == "+" || trimmed[next] == "-" { index = next }
            } else {
                break
            }
            index = trimmed.index(after: index)
        }
        return sawDigit ? Double(trimmed[trimmed.startIndex..<best]) ?? 0 : 0
    }

    /// `NSString.boolValue`: YES on a leading Y, y, T, t or a digit 1–9, after white space, an
    /// optional sign and any zeros; NO otherwise.
    static func boolValue(_ text: String) -> Bool {
        var bytes = Substring(text).utf8.drop(while: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) })
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        bytes = bytes.drop(while: { $0 == UInt8(ascii: "0") })
        guard let first = bytes.first else { return false }
        return "YyTt123456789".utf8.contains(first)
    }
}

/// A piece of HTML. Markup written in this module's code goes in as it is; everything else
/// goes in through `HTML.escaped(_:)`, the one escaping function: a `String` interpolated into
/// HTML (`"<td>\(name)</td>" as HTML`) is escaped, whatever it holds, so that a store's text
/// (values, entity and attribute names, SwiftData's JSON, file names) can never become markup.
/// Only an `HTML` value, made here, is inserted as it is.
public struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public private(set) var text: String

    public init(stringLiteral markup: String) { text = markup }

    public init(stringInterpolation: Interpolation) { text = stringInterpolation.text }

    /// Markup this module built itself (an SVG `dot` drew from escaped names, checked).
    init(trusted markup: String) { text = markup }

    public var description: String { text }

    public static let empty: HTML = ""

    /// `text` as HTML text or an attribute value (always written in double quotes): the
    /// five characters HTML gives meaning to become entities.
    public static func escaped(_ text: String) -> String {
        // Most text (names, numbers, dates) holds nothing to escape: handed back as it is,
        // after one pass over its bytes (a grid page escapes a thousand cells).
        guard text.utf8.contains(where: needsEscaping) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            // A NUL or another control character is shown, not passed to the parser.
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `& < > " '`, a control character or DEL.
    private static func needsEscaping(_ byte: UInt8) -> Bool {
        switch byte {
        case 38, 60, 62, 34, 39, 0x7F, 0..<0x20: return true
        default: return false
        }
    }

    public static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(trusted: lhs.text + rhs.text) }

    public static func += (lhs: inout HTML, rhs: HTML) { lhs.text += rhs.text }

    /// The pieces one after another.
    public static func joined(_ pieces: [HTML], separator: HTML = .empty) -> HTML {
        HTML(trusted: pieces.map(\.text).joined(separator: separator.text))
    }

    public struct Interpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity + 16 * interpolationCount) }

        public mutating func appendLiteral(_ literal: String) { text += literal }
        /// Text: escaped.
        public mutating func appendInterpolation(_ value: String) { text += HTML.escaped(value) }
        public mutating func appendInterpolation(_ value: Substring) { text += HTML.escaped(String(value)) }
        /// HTML made here: as it is.
        public mutating func appendInterpolation(_ value: HTML) { text += value.text }
        public mutating func appendInterpolation(_ value: Int) { text += String(value) }
        public mutating func appendInterpolation(_ value: Int64) { text += String(value) }
        public mutating func appendInterpolation(_ value: Double) { text += String(value) }
        public mutating func appendInterpolation(_ values: [HTML]) { text += values.map(\.text).joined() }
    }
}

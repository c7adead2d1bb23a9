import Foundation

/// JSON text read from a file a buffer at a time, value by value, so that an import of a
/// document of a million objects holds one object at a time, not the document. Every
/// fault in the text (truncation, invalid UTF-8, nesting past `maxDepth`, a wrong token) is
/// an `ImportError.malformed` naming the line: the file is user input.
struct JSONReader {
    /// A value as the text gave it. Numbers keep their text, so that an integer attribute
    /// gets every digit of an Int64 and not a Double's approximation.
    enum Value {
        case null
        case bool(Bool)
        case number(String)
        case string(String)
        case array([Value])
        case object([(key: String, value: Value)])
        /// The exact bytes of a value, for attributes that store JSON as it was written.
        case raw([UInt8])
    }

    /// Deeper nesting is refused rather than followed: nothing an import takes nests deeper,
    /// and a recursive reader of hostile text must not run out of stack.
    static let maxDepth = 256

    private var file: FileChunks
    private var buffer: [UInt8] = []
    private var index = 0
    private(set) var line = 1
    private var capture: [UInt8]?

    init(path: String) throws {
        file = try FileChunks(path: path)
    }

    func close() { file.close() }

    // MARK: Bytes

    private mutating func fill() throws -> Bool {
        guard let chunk = try file.next() else { return false }
        buffer = chunk
        index = 0
        return true
    }

    /// The next byte, not consumed; nil at the end of the file.
    private mutating func peek() throws -> UInt8? {
        if index < buffer.count { return buffer[index] }
        return try fill() ? buffer[index] : nil
    }

    private mutating func take() throws -> UInt8 {
        guard let b = try peek() else { throw malformed("the file ends in the middle of a value") }
        index += 1
        if b == 10 { line += 1 }
        capture?.append(b)
        return b
    }

    func malformed(_ why: String) -> ImportError { .malformed(line: line, why: why) }

    /// The next byte after white space, not consumed.
    mutating func peekToken() throws -> UInt8? {
        while let b = try peek() {
            guard b == 32 || b == 10 || b == 13 || b == 9 else { return b }
            _ = try take()
        }
        return nil
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws {
        guard let b = try peekToken() else { throw malformed("the file ends where \(what) was expected") }
        guard b == byte else { throw malformed("expected \(what), found \(Self.describe(b))") }
        _ = try take()
    }

    /// True at the end of the text (white space aside).
    mutating func isAtEnd() throws -> Bool { try peekToken() == nil }

    static func describe(_ b: UInt8) -> String {
        b >= 32 && b < 127 ? "'\(Character(Unicode.Scalar(b)))'" : String(format: "the byte 0x%02X", b)
    }

    // MARK: Containers, one member at a time

    /// Reads the `[` or `,` before the next element, or the `]` after the last; true when
    /// an element follows.
    mutating func nextElement(first: inout Bool) throws -> Bool {
        if first {
            try expect(91, "'['")
            first = false
            if try peekToken() == 93 { _ = try take(); return false }
            return true
        }
        guard let b = try peekToken() else { throw malformed("the file ends inside an array") }
        _ = try take()
        if b == 93 { return false }
        guard b == 44 else { throw malformed("expected ',' or ']' in an array, found \(Self.describe(b))") }
        return true
    }

    /// The next member's key of an object, its `:` read; nil after the last member.
    mutating func nextKey(first: inout Bool) throws -> String? {
        if first {
            try expect(123, "'{'")
            first = false
            if try peekToken() == 125 { _ = try take(); return nil }
        } else {
            guard let b = try peekToken() else { throw malformed("the file ends inside an object") }
            _ = try take()
            if b == 125 { return nil }
            guard b == 44 else { throw malformed("expected ',' or '}' in an object, found \(Self.describe(b))") }
        }
        guard try peekToken() == 34 else { throw malformed("expected a key in quotes") }
        let key = try string()
        try expect(58, "':'")
        return key
    }

    // MARK: Values

    mutating func value(depth: Int = 0) throws -> Value {
        guard depth <= Self.maxDepth else { throw malformed("values nest deeper than \(Self.maxDepth) levels") }
        guard let b = try peekToken() else { throw malformed("the file ends where a value was expected") }
        switch b {
        case 123:
            var pairs: [(key: String, value: Value)] = []
            var first = true
            while let key = try nextKey(first: &first) { pairs.append((key, try value(depth: depth + 1))) }
            return .object(pairs)
        case 91:
            var items: [Value] = []
            var first = true
            while try nextElement(first: &first) { items.append(try value(depth: depth + 1)) }
            return .array(items)
        case 34:
            return .string(try string())
        case 116: try word("true"); return .bool(true)
        case 102: try word("false"); return .bool(false)
        case 110: try word("null"); return .null
        case 45, 48...57: return .number(try number())
        default: throw malformed("expected a value, found \(Self.describe(b))")
        }
    }

    /// A value's exact bytes, checked as it is read.
    mutating func rawValue() throws -> Value {
        _ = try peekToken()
        capture = []
        defer { capture = nil }
        let parsed = try value()
        if case .null = parsed { return .null }
        return .raw(capture ?? [])
    }

    /// Passes over one value.
    mutating func skipValue() throws { _ = try value() }

    private mutating func word(_ text: String) throws {
        for expected in text.utf8 {
            guard try peek() == expected else { throw malformed("expected a value (\(text)?)") }
            _ = try take()
        }
    }

    private mutating func number() throws -> String {
        var bytes: [UInt8] = []
        while let b = try peek(), b == 45 || b == 43 || b == 46 || b == 69 || b == 101 || (48...57).contains(b) {
            bytes.append(try take())
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard Double(text) != nil else { throw malformed("\(text) is not a number") }
        return text
    }

    mutating func string() throws -> String {
        _ = try take()  // the opening quote
        var bytes: [UInt8] = []
        while true {
            let b = try take()
            switch b {
            case 34:
                guard let text = String(bytes: bytes, encoding: .utf8) else { throw malformed("a string is not valid UTF-8") }
                return text
            case 92:
                let e = try take()
                switch e {
                case 34, 92, 47: bytes.append(e)
                case 98: bytes.append(8)
                case 102: bytes.append(12)
                case 110: bytes.append(10)
                case 114: bytes.append(13)
                case 116: bytes.append(9)
                case 117:
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard try take() == 92, try take() == 117 else { throw malformed("a \\u escape holds half a surrogate pair") }
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw malformed("a \\u escape holds half a surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw malformed("a \\u escape names no character") }
                    bytes.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw malformed("\\\(Self.describe(e)) is not a JSON escape")
                }
            case 0..<32:
                throw malformed("a string holds a control character; JSON spells it as an escape")
            default:
                bytes.append(b)
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = try take()
            guard let digit = Self.hexDigit(b) else { throw malformed("a \\u escape needs four hex digits") }
            value = value << 4 | digit
        }
        return value
    }

    private static func hexDigit(_ b: UInt8) -> UInt32? {
        switch b {
        case 48...57: return UInt32(b - 48)
        case 65...70: return UInt32(b - 55)
        case 97...102: return UInt32(b - 87)
        default: return nil
        }
    }
}

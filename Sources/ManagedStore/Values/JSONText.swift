/// JSON as SwiftData stores Codable values: recognised without decoding, and written as
/// Foundation's `JSONEncoder` writes it (compact, `/` escaped as `\/`, other text as is),
/// so that what cdinspect writes is what the app would have written.
public enum JSONText {
    /// The deepest nesting accepted: a hand-edited or hostile value deeper than this is
    /// shown as bytes rather than walked.
    static let maximumDepth = 512

    /// Whether `bytes` are one JSON value (RFC 8259), with nothing after it but white space.
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer)
            guard scanner.value(depth: 0) else { return false }
            scanner.skipSpace()
            return scanner.at == buffer.count
        }
    }

    /// The JSON `JSONEncoder` writes for a literal a user gave (strings, numbers, booleans,
    /// nil, arrays of them); nil for a value JSON has no form for (a date).
    public static func encode(_ value: PredicateValue) -> [UInt8]? {
        var out: [UInt8] = []
        return write(value, to: &out) ? out : nil
    }

    private static func write(_ value: PredicateValue, to out: inout [UInt8]) -> Bool {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .integer(let i): out += Array(String(i).utf8)
        case .double(let d):
            guard d.isFinite else { return false }
            // JSONEncoder writes a whole Double without a fraction (`2`, not `2.0`).
            out += Array((d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)).utf8)
        case .string(let s): quote(s, to: &out)
        case .date: return false
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                guard write(item, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        }
        return true
    }

    private static func quote(_ s: String, to out: inout [UInt8]) {
        out.append(34)
        for byte in s.utf8 {
            switch byte {
            case 34: out += [92, 34]
            case 92: out += [92, 92]
            case 47: out += [92, 47]
            case 8: out += [92, 98]
            case 12: out += [92, 102]
            case 10: out += [92, 110]
            case 13: out += [92, 114]
            case 9: out += [92, 116]
            case 0..<32:
                let hex = Array("0123456789abcdef".utf8)
                out += [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(34)
    }

    /// A recursive-descent check of one value; depth bounded by `maximumDepth`.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var current: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipSpace() {
            while let c = current, c == 32 || c == 9 || c == 10 || c == 13 { at += 1 }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard at + text.count <= bytes.count else { return false }
            for (i, c) in text.enumerated() where bytes[at + i] != c { return false }
            at += text.count
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONText.maximumDepth else { return false }
            skipSpace()
            guard let c = current else { return false }
            switch c {
            case UInt8(ascii: "{"):
                at += 1
                skipSpace()
                if current == UInt8(ascii: "}") { at += 1; return true }
                while true {
                    skipSpace()
                    guard current == 34, string() else { return false }
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    at += 1
                    guard value(depth: depth + 1) else { return false }
                    skipSpace()
                    if current == UInt8(ascii: ",") { at += 1; continue }
                    if current == UInt8(ascii: "}") { at += 1; return true }
                    return false
                }
            case UInt8(ascii: "["):
                at += 1
                skipSpace()
                if current == UInt8(ascii: "]") { at += 1; return true }
                while true {
                    guard value(depth: depth + 1) else { return false }
                    skipSpace()
                    if current == UInt8(ascii: ",") { at += 1; continue }
                    if current == UInt8(ascii: "]") { at += 1; return true }
                    return false
                }
            case 34: return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        /// A string, its escapes checked and its bytes valid UTF-8.
        mutating func string() -> Bool {
            at += 1
            let start = at
            while let c = current {
                switch c {
                case 34:
                    let valid = isUTF8(UnsafeBufferPointer(rebasing: bytes[start..<at]))
                    at += 1
                    return valid
                case 92:
                    at += 1
                    guard let e = current else { return false }
                    if e == UInt8(ascii: "u") {
                        guard at + 4 < bytes.count, (1...4).allSatisfy({ isHex(bytes[at + $0]) }) else { return false }
                        at += 5
                    } else {
                        guard [34, 92, 47, 98, 102, 110, 114, 116].contains(e) else { return false }
                        at += 1
                    }
                case 0..<32: return false
                default: at += 1
                }
            }
            return false
        }

        mutating func number() -> Bool {
            if current == UInt8(ascii: "-") { at += 1 }
            guard let first = current, isDigit(first) else { return false }
            at += 1
            if first != UInt8(ascii: "0") { while let c = current, isDigit(c) { at += 1 } }
            if current == UInt8(ascii: ".") {
                at += 1
                guard let c = current, isDigit(c) else { return false }
                while let c = current, isDigit(c) { at += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                at += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { at += 1 }
                guard let c = current, isDigit(c) else { return false }
                while let c = current, isDigit(c) { at += 1 }
            }
            return true
        }

        func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

        func isUTF8(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            var iterator = text.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
        func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c | 0x20 >= 97 && c | 0x20 <= 102) }
    }
}

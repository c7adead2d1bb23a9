/// The part of XML an Xcode model file uses: elements and their attributes, read in order.
///
/// Why not Foundation's `XMLParser`: on Linux it lives in FoundationXML, which links
/// libxml2 and, through it, the system's ICU. Loading those on every start cost a
/// one-shot `cdinspect count` about a millisecond, for a file most commands never read.
/// Model files are machine-written and simple, so this reader is non-validating: it skips
/// the declaration, processing instructions, comments, a DOCTYPE, CDATA and text, and
/// decodes the five predefined entities and character references in attribute values.
/// What it cannot read, it reports with the line.
struct ModelXMLReader {
    enum Event: Equatable {
        case start(name: String, attributes: [String: String])
        case end(name: String)
        /// The text of an element, entities decoded, when the caller asks for text (a mapping
        /// model keeps its values in text; a model file in attributes only).
        case text(String)
    }

    struct Error: Swift.Error, CustomStringConvertible, Equatable {
        let line: Int
        let message: String
        var description: String { "line \(line): \(message)" }
    }

    private let bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var keepsText = false

    /// Calls `handle` for each start and end tag, a self-closing tag giving both, and with
    /// `text`, for each element's text that is not only spaces.
    static func read(_ bytes: [UInt8], text: Bool = false, _ handle: (Event) throws -> Void) throws {
        var reader = ModelXMLReader(bytes: bytes)
        reader.keepsText = text
        try reader.run(handle)
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is allowed before the declaration.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    }

    private mutating func run(_ handle: (Event) throws -> Void) throws {
        var open: [String] = []
        var sawRoot = false
        var text: [UInt8] = []
        while let byte = peek() {
            guard byte == UInt8(ascii: "<") else {
                if open.isEmpty, !Self.isSpace(byte) { throw error("text outside the root element") }
                advance()
                if keepsText {
                    if byte == UInt8(ascii: "&") { text += try readReference() } else { text.append(byte) }
                }
                continue
            }
            if keepsText, !text.isEmpty {
                if !text.allSatisfy(Self.isSpace) { try handle(.text(String(decoding: text, as: UTF8.self))) }
                text.removeAll(keepingCapacity: true)
            }
            if try skipMarkup() { continue }
            if peek(1) == UInt8(ascii: "/") {
                position += 2
                let name = try readName()
                skipSpaces()
                try expect(">")
                guard let innermost = open.popLast() else { throw error("</\(name)> closes nothing") }
                guard innermost == name else { throw error("</\(name)> does not close <\(innermost)>") }
                try handle(.end(name: name))
                continue
            }
            advance()
            if open.isEmpty, sawRoot { throw error("a second root element") }
            let name = try readName()
            var attributes: [String: String] = [:]
            while true {
                let hadSpace = skipSpaces()
                guard let next = peek() else { throw error("the file ends inside <\(name)>") }
                if next == UInt8(ascii: ">") {
                    advance()
                    open.append(name)
                    sawRoot = true
                    try handle(.start(name: name, attributes: attributes))
                    break
                }
                if next == UInt8(ascii: "/") {
                    advance()
                    try expect(">")
                    sawRoot = true
                    try handle(.start(name: name, attributes: attributes))
                    try handle(.end(name: name))
                    break
                }
                guard hadSpace else { throw error("expected a space, '>' or '/>' in <\(name)>") }
                let key = try readName()
                skipSpaces()
                try expect("=")
                skipSpaces()
                guard attributes[key] == nil else { throw error("attribute \(key) is repeated in <\(name)>") }
                attributes[key] = try readQuoted()
            }
        }
        if let innermost = open.last { throw error("the file ends before </\(innermost)>") }
        if !sawRoot { throw error("no element found") }
    }

    /// Skips `<?…?>`, `<!--…-->`, `<![CDATA[…]]>` and `<!DOCTYPE …>`; false at a tag.
    private mutating func skipMarkup() throws -> Bool {
        let delimited: [(open: StaticString, close: StaticString, what: String)] = [
            ("<?", "?>", "processing instruction"), ("<!--", "-->", "comment"), ("<![CDATA[", "]]>", "CDATA section"),
        ]
        if let markup = delimited.first(where: { starts(with: $0.open) }) {
            try skip(past: markup.close, what: markup.what)
            return true
        }
        guard starts(with: "<!") else { return false }
        // A DOCTYPE, with any internal subset in brackets.
        var depth = 0
        while let byte = peek() {
            advance()
            if byte == UInt8(ascii: "[") { depth += 1 }
            if byte == UInt8(ascii: "]") { depth -= 1 }
            if byte == UInt8(ascii: ">"), depth <= 0 { return true }
        }
        throw error("the file ends inside a DOCTYPE")
    }

    private mutating func readName() throws -> String {
        guard let first = peek(), Self.isNameByte(first), !Self.isDigitOrPunctuation(first) else {
            throw error(peek().map { "unexpected '\(Self.show($0))' where a name belongs" } ?? "the file ends where a name belongs")
        }
        let start = position
        while let byte = peek(), Self.isNameByte(byte) { advance() }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func readQuoted() throws -> String {
        guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw error("an attribute value must be quoted")
        }
        advance()
        var value: [UInt8] = []
        while let byte = peek() {
            advance()
            if byte == quote { return String(decoding: value, as: UTF8.self) }
            if byte == UInt8(ascii: "<") { throw error("'<' inside an attribute value") }
            if byte == UInt8(ascii: "&") {
                value.append(contentsOf: try readReference())
            } else {
                value.append(byte)
            }
        }
        throw error("the file ends inside an attribute value")
    }

    /// After `&`: one of the five predefined entities or a character reference, as UTF-8.
    private mutating func readReference() throws -> [UInt8] {
        let start = position
        while let byte = peek(), byte != UInt8(ascii: ";"), position - start < 12 { advance() }
        guard peek() == UInt8(ascii: ";") else { throw error("an '&' that starts no entity (write &amp;)") }
        let name = String(decoding: bytes[start..<position], as: UTF8.self)
        advance()
        switch name {
        case "lt": return Array("<".utf8)
        case "gt": return Array(">".utf8)
        case "amp": return Array("&".utf8)
        case "quot": return Array("\"".utf8)
        case "apos": return Array("'".utf8)
        default:
            let hex = name.hasPrefix("#x") || name.hasPrefix("#X")
            guard name.hasPrefix("#"), let code = UInt32(name.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
                  let scalar = Unicode.Scalar(code) else {
                throw error("unknown entity &\(name);")
            }
            return Array(String(Character(scalar)).utf8)
        }
    }

    // MARK: Bytes

    private func peek(_ ahead: Int = 0) -> UInt8? {
        position + ahead < bytes.count ? bytes[position + ahead] : nil
    }

    private mutating func advance() {
        if bytes[position] == UInt8(ascii: "\n") { line += 1 }
        position += 1
    }

    @discardableResult
    private mutating func skipSpaces() -> Bool {
        let start = position
        while let byte = peek(), Self.isSpace(byte) { advance() }
        return position > start
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return (0..<count).allSatisfy { bytes[position + $0] == text.utf8Start[$0] }
    }

    private mutating func skip(past end: StaticString, what: String) throws {
        while peek() != nil {
            if starts(with: end) {
                for _ in 0..<end.utf8CodeUnitCount { advance() }
                return
            }
            advance()
        }
        throw error("the file ends inside a \(what)")
    }

    private mutating func expect(_ character: Unicode.Scalar) throws {
        guard peek() == UInt8(ascii: character) else {
            throw error(peek().map { "expected '\(character)', found '\(Self.show($0))'" } ?? "expected '\(character)' before the end of the file")
        }
        advance()
    }

    private func error(_ message: String) -> Error { Error(line: line, message: message) }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Names are ASCII letters, digits, `_ - . :`, or any non-ASCII byte (UTF-8 letters).
    private static func isNameByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    private static func isDigitOrPunctuation(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func show(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return byte < 0x20 || byte >= 0x7F ? "\\x" + (byte < 0x10 ? "0" : "") + hex : String(UnicodeScalar(byte))
    }
}

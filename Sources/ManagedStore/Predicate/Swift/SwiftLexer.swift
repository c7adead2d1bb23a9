/// One token of Swift predicate source, with the offset (in Unicode scalars) it starts at.
struct SwiftToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        /// `$0`
        case anonymous(Int)
        /// `#Predicate`
        case pound(String)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// Operators and punctuation: `==`, `&&`, `?.`, `(`, `{`, `\`, …
        case punctuation(String)
        case end
    }

    let kind: Kind
    let position: Int
    /// Whether whitespace comes right before it: `a !` is not `a!`, and a `<` with
    /// space on both sides is an operator.
    let spaced: Bool
}

/// Splits Swift predicate source into tokens: identifiers (backquoted too), `$0`, number and
/// string literals (with Swift's escapes; interpolation is refused), and the operators a
/// predicate closure uses. Comments are skipped.
struct SwiftLexer: ScalarLexing {
    /// Longest first.
    static let punctuation = ["===", "!==", "...", "..<", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "->",
                              "<", ">", "!", "?", "+", "-", "*", "/", "%", "(", ")", "{", "}", "[", "]", ",", ".", ":", "\\", "=", "&", "|", "^", "~", ";"]

    let source: String
    let scalars: [Unicode.Scalar]

    init(_ source: String) {
        self.source = source
        scalars = Array(source.unicodeScalars)
    }

    func tokens() throws -> [SwiftToken] {
        var tokens: [SwiftToken] = []
        var i = 0
        while true {
            let before = i
            try skipSpaceAndComments(&i)
            let spaced = i > before || i == 0
            guard i < scalars.count else { break }
            let start = i
            let c = scalars[i]
            let kind: SwiftToken.Kind
            if isIdentifierStart(c) {
                kind = .identifier(identifier(from: &i))
            } else if c == "`" {
                i += 1
                let name = identifier(from: &i)
                guard !name.isEmpty, i < scalars.count, scalars[i] == "`" else { throw error("unclosed backquoted name", at: start) }
                i += 1
                kind = .identifier(name)
            } else if c == "$", i + 1 < scalars.count, isDigit(scalars[i + 1]) {
                i += 1
                var digits = ""
                while i < scalars.count, isDigit(scalars[i]) { digits.unicodeScalars.append(scalars[i]); i += 1 }
                guard let n = Int(digits) else { throw error("too large a parameter number", at: start) }
                kind = .anonymous(n)
            } else if c == "#" {
                i += 1
                let name = identifier(from: &i)
                guard !name.isEmpty else { throw error("expected a name after '#'", at: start) }
                kind = .pound(name)
            } else if c == "\"" {
                kind = .string(try string(from: &i))
            } else if isDigit(c) {
                kind = try number(from: &i)
            } else if let p = SwiftLexer.punctuation.first(where: { matches($0, at: i) }) {
                i += p.unicodeScalars.count
                kind = .punctuation(p)
            } else {
                throw error("unexpected character '\(Character(c))'", at: start)
            }
            tokens.append(SwiftToken(kind: kind, position: start, spaced: spaced))
        }
        tokens.append(SwiftToken(kind: .end, position: scalars.count, spaced: true))
        return tokens
    }

    private func skipSpaceAndComments(_ i: inout Int) throws {
        while i < scalars.count {
            if scalars[i].properties.isWhitespace { i += 1; continue }
            if matches("//", at: i) {
                while i < scalars.count, scalars[i] != "\n" { i += 1 }
                continue
            }
            if matches("/*", at: i) {
                let start = i
                i += 2
                while i < scalars.count, !matches("*/", at: i) { i += 1 }
                guard i < scalars.count else { throw error("unclosed comment", at: start) }
                i += 2
                continue
            }
            return
        }
    }

    private func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    private func identifier(from i: inout Int) -> String {
        var out = String.UnicodeScalarView()
        while i < scalars.count, isIdentifierStart(scalars[i]) || isDigit(scalars[i]) {
            out.append(scalars[i])
            i += 1
        }
        return String(out)
    }

    /// A string literal: `"…"` with `\n`, `\t`, `\r`, `\0`, `\\`, `\"`, `\'` and `\u{…}`.
    /// Multi-line and raw strings, and interpolation, are not predicate constants.
    private func string(from i: inout Int) throws -> String {
        let start = i
        if matches("\"\"\"", at: i) { throw error("multi-line string literals are not supported in a predicate; write \"…\"", at: start) }
        i += 1
        var out = String.UnicodeScalarView()
        while i < scalars.count {
            let c = scalars[i]
            if c == "\"" { i += 1; return String(out) }
            if c == "\n" { break }
            if c == "\\" {
                guard i + 1 < scalars.count else { break }
                let e = scalars[i + 1]
                i += 2
                switch e {
                case "\"", "'", "\\": out.append(e)
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "0": out.append("\0")
                case "u":
                    guard i < scalars.count, scalars[i] == "{" else { throw error("expected '{' after \\u", at: i - 2) }
                    var hex = ""
                    i += 1
                    while i < scalars.count, scalars[i] != "}" { hex.unicodeScalars.append(scalars[i]); i += 1 }
                    guard i < scalars.count, hex.count <= 8, let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else {
                        throw error("invalid \\u{…} escape", at: i)
                    }
                    i += 1
                    out.append(scalar)
                case "(":
                    throw error("string interpolation is not a constant a predicate can capture; give the value with a variable", at: i - 2)
                default:
                    throw error("invalid escape '\\\(Character(e))' in a string", at: i - 2)
                }
                continue
            }
            out.append(c)
            i += 1
        }
        throw error("unterminated string literal", at: start)
    }

    /// Integers (decimal, `0x`, `0o`, `0b`, with `_` separators) and decimal floating-point.
    private func number(from i: inout Int) throws -> SwiftToken.Kind {
        let start = i
        var radix = 10
        if scalars[i] == "0", i + 1 < scalars.count {
            switch scalars[i + 1] {
            case "x": radix = 16
            case "o": radix = 8
            case "b": radix = 2
            default: break
            }
            if radix != 10 { i += 2 }
        }
        var text = ""
        var isFloat = false
        func isPart(_ c: Unicode.Scalar) -> Bool {
            if c == "_" { return true }
            if radix == 16 { return c.properties.isASCIIHexDigit }
            return isDigit(c)
        }
        while i < scalars.count {
            let c = scalars[i]
            if isPart(c) {
                if c != "_" { text.unicodeScalars.append(c) }
                i += 1
            } else if radix == 10, c == ".", !isFloat, i + 1 < scalars.count, isDigit(scalars[i + 1]) {
                isFloat = true
                text.append(".")
                i += 1
            } else if radix == 10, c == "e" || c == "E" {
                isFloat = true
                text.unicodeScalars.append(c)
                i += 1
                if i < scalars.count, scalars[i] == "-" || scalars[i] == "+" { text.unicodeScalars.append(scalars[i]); i += 1 }
            } else {
                break
            }
        }
        if i < scalars.count, isIdentifierStart(scalars[i]) { throw error("invalid number literal", at: start) }
        if isFloat {
            guard let d = Double(text), d.isFinite else { throw error("invalid number literal", at: start) }
            return .double(d)
        }
        guard let n = Int64(text, radix: radix) else { throw error("integer literal overflows Int64", at: start) }
        return .integer(n)
    }
}

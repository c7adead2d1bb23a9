/// One token of a predicate format string, with the offset it starts at.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)       // a key; `#size` arrives here as `size`
        case keyword(String)          // a reserved word, upper-cased
        case variable(String)         // `$name`
        case collectionOperator(String) // `@count`
        case string(String)
        case integer(Int64)
        case double(Double)
        case formatSpecifier(String)  // `@`, `K`, `d`, `f`, `ld`, …
        case punctuation(String)      // operators, brackets, `,` and `.`
        case end
    }

    let kind: Kind
    let position: Int

    /// A string literal as an error message shows it: quoted, and cut short when long (a
    /// message is one line, and a store's text can be megabytes).
    static func quoted(_ s: String) -> String {
        let shown = s.count > 40 ? s.prefix(40) + "…" : Substring(s)
        return "\"" + shown.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

/// Splits a format string into tokens. Keywords are case-insensitive; keys are not.
struct PredicateLexer: ScalarLexing {
    static let reservedWords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI",
        "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE",
        "YES", "FALSE", "NO", "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH", "CAST",
        "TRUEPREDICATE", "FALSEPREDICATE", "FUNCTION",
    ]

    /// Longest first, so `**` wins over `*` and `<=` over `<`.
    static let punctuation = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**", ":=",
                              "=", "<", ">", "!", "+", "-", "*", "/", "(", ")", "{", "}", "[", "]", ",", "."]

    let source: String
    let scalars: [Unicode.Scalar]

    init(_ source: String) {
        self.source = source
        scalars = Array(source.unicodeScalars)
    }

    func tokens() throws -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        var i = 0
        while true {
            while i < scalars.count, scalars[i].properties.isWhitespace { i += 1 }
            guard i < scalars.count else { break }
            let start = i
            let c = scalars[i]
            if isIdentifierStart(c) {
                let word = identifier(from: &i)
                let upper = word.uppercased()
                if upper == "UTI", let op = utiOperator(at: i) {
                    i += op.count - 3
                    tokens.append(PredicateToken(kind: .keyword(op), position: start))
                } else if PredicateLexer.reservedWords.contains(upper) {
                    tokens.append(PredicateToken(kind: .keyword(upper), position: start))
                } else {
                    tokens.append(PredicateToken(kind: .identifier(word), position: start))
                }
            } else if c == "#" || c == "$" || c == "@" {
                i += 1
                guard i < scalars.count, isIdentifierStart(scalars[i]) else {
                    throw error("'\(c)' must be followed by a name", at: start)
                }
                let word = identifier(from: &i)
                let kind: PredicateToken.Kind = c == "#" ? .identifier(word) : c == "$" ? .variable(word) : .collectionOperator(word)
                tokens.append(PredicateToken(kind: kind, position: start))
            } else if c == "\"" || c == "'" {
                tokens.append(PredicateToken(kind: .string(try string(from: &i)), position: start))
            } else if isDigit(c) || (c == "." && i + 1 < scalars.count && isDigit(scalars[i + 1])) {
                tokens.append(PredicateToken(kind: try number(from: &i), position: start))
            } else if c == "%" {
                tokens.append(PredicateToken(kind: try formatSpecifier(from: &i), position: start))
            } else if let p = PredicateLexer.punctuation.first(where: { matches($0, at: i) }) {
                i += p.unicodeScalars.count
                tokens.append(PredicateToken(kind: .punctuation(p), position: start))
            } else if c == "?" {
                throw error("'?' is not part of the predicate language (use %@ or a literal)", at: start)
            } else {
                throw error("unexpected character '\(c)'", at: start)
            }
        }
        tokens.append(PredicateToken(kind: .end, position: scalars.count))
        return tokens
    }

    private func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    private func identifier(from i: inout Int) -> String {
        let start = i
        while i < scalars.count, isIdentifierStart(scalars[i]) || isDigit(scalars[i]) { i += 1 }
        return String(String.UnicodeScalarView(scalars[start..<i]))
    }

    /// `UTI-CONFORMS-TO` and `UTI-EQUALS` are the only keywords with hyphens.
    private func utiOperator(at i: Int) -> String? {
        for op in ["UTI-CONFORMS-TO", "UTI-EQUALS"] {
            let rest = Array(op.unicodeScalars.dropFirst(3))
            guard i + rest.count <= scalars.count else { continue }
            let candidate = String(String.UnicodeScalarView(scalars[i..<(i + rest.count)])).uppercased()
            if candidate == String(String.UnicodeScalarView(rest)) { return op }
        }
        return nil
    }

    private func string(from i: inout Int) throws -> String {
        let start = i
        let quote = scalars[i]
        i += 1
        var out = String.UnicodeScalarView()
        while i < scalars.count {
            let c = scalars[i]
            if c == quote { i += 1; return String(out) }
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
                    guard i + 4 <= scalars.count,
                          let value = UInt32(String(String.UnicodeScalarView(scalars[i..<(i + 4)])), radix: 16),
                          let scalar = Unicode.Scalar(value) else {
                        throw error("\\u needs four hexadecimal digits", at: i - 2)
                    }
                    out.append(scalar)
                    i += 4
                default:
                    // Anything else keeps its backslash: LIKE patterns use `\*` and `\?`.
                    out.append("\\")
                    out.append(e)
                }
                continue
            }
            out.append(c)
            i += 1
        }
        throw error("unterminated string", at: start)
    }

    private func number(from i: inout Int) throws -> PredicateToken.Kind {
        let start = i
        if scalars[i] == "0", i + 1 < scalars.count, let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][Character(scalars[i + 1])] {
            i += 2
            let digitsStart = i
            while i < scalars.count, isIdentifierStart(scalars[i]) || isDigit(scalars[i]) { i += 1 }
            let digits = String(String.UnicodeScalarView(scalars[digitsStart..<i]))
            guard let value = Int64(digits, radix: radix) else { throw error("bad number '\(String(String.UnicodeScalarView(scalars[start..<i])))'", at: start) }
            return .integer(value)
        }
        var isFloat = false
        while i < scalars.count, isDigit(scalars[i]) { i += 1 }
        if i < scalars.count, scalars[i] == ".", i + 1 < scalars.count, isDigit(scalars[i + 1]) {
            isFloat = true
            i += 1
            while i < scalars.count, isDigit(scalars[i]) { i += 1 }
        }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            var j = i + 1
            if j < scalars.count, scalars[j] == "+" || scalars[j] == "-" { j += 1 }
            if j < scalars.count, isDigit(scalars[j]) {
                isFloat = true
                i = j
                while i < scalars.count, isDigit(scalars[i]) { i += 1 }
            }
        }
        if i < scalars.count, isIdentifierStart(scalars[i]) {
            throw error("bad number: a name cannot start with a digit", at: start)
        }
        let text = String(String.UnicodeScalarView(scalars[start..<i]))
        if !isFloat, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text) else { throw error("bad number '\(text)'", at: start) }
        return .double(value)
    }

    private func formatSpecifier(from i: inout Int) throws -> PredicateToken.Kind {
        let start = i
        i += 1
        for spec in ["@", "K", "lld", "llu", "ld", "lu", "lf", "d", "i", "u", "f", "e", "g", "x", "X", "o", "c", "s"] where matches(spec, at: i) {
            i += spec.count
            return .formatSpecifier(spec)
        }
        throw error("unknown format specifier (use %@, %K, %d or %f)", at: start)
    }
}

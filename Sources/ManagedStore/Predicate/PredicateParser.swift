import Foundation

/// Parses NSPredicate format strings (predicate-grammar.md §3): AND binds tighter than OR,
/// NOT applies to one comparison or parenthesised predicate, and `(` may open either a
/// predicate or an expression, so that branch is tried both ways. Each `(` is read once at
/// each state and its outcome remembered (`ParenthesisMemo`): without that, parentheses
/// nested inside SUBQUERYs inside parentheses were read again on every way back, and 490
/// bytes took 75 seconds (FuzzTesting/FailCases/NSPredicate).
///
/// Format specifiers are filled while parsing, in order, from `arguments` (`PredicateArgument`:
/// written in the predicate language itself, `'"John"'`, `30`, `{1, 2}`, `CAST(0, "NSDate")`,
/// or a key path for `%K`; or a typed value). `$name` takes its value from `variables` when
/// it is bound there.
public struct PredicateParser {
    public static func parse(_ format: String, arguments: [PredicateArgument] = [], variables: [String: String] = [:]) throws -> Predicate {
        var parser = try Parser(format, arguments: arguments, variables: variables)
        let predicate = try parser.predicate()
        try parser.expectEnd()
        return predicate
    }

    /// How many times parsing `format` reads a `(` as a predicate (the work the memo bounds;
    /// for tests).
    static func parenthesisReadings(_ format: String) -> Int {
        guard var parser = try? Parser(format, arguments: [], variables: [:]) else { return 0 }
        _ = try? parser.predicate()
        return parser.memo.readings
    }

    /// As `parse(_:arguments:variables:)`, each argument written in the predicate language.
    public static func parse(_ format: String, written arguments: [String], variables: [String: String] = [:]) throws -> Predicate {
        try parse(format, arguments: arguments.map(PredicateArgument.written), variables: variables)
    }

    /// How many format specifiers (`%@`, `%K`, …) the string has outside quotes. Extra
    /// arguments are ignored, as `predicateWithFormat:` ignores them; a front end can warn.
    public static func specifierCount(_ format: String) -> Int {
        specifiers(format).count
    }

    /// The format specifiers outside quotes, in order, without their `%` (`@`, `K`, `d`).
    public static func specifiers(_ format: String) -> [String] {
        guard let tokens = try? PredicateLexer(format).tokens() else { return [] }
        return tokens.compactMap { if case .formatSpecifier(let spec) = $0.kind { return spec } else { return nil } }
    }

    /// An expression (`age + 1`, `"text"`, `score * 2`), as the value of a batch update.
    public static func parseExpression(_ text: String) throws -> PredicateOperand {
        var parser = try Parser(text, arguments: [], variables: [:])
        let expression = try parser.expression()
        try parser.expectEnd()
        return expression
    }

    /// A constant written in the predicate language: a number, a quoted string, YES/NO,
    /// nil, `{…}` of constants, or `CAST(n, "NSDate")`.
    public static func parseLiteral(_ text: String) throws -> PredicateValue {
        var parser = try Parser(text, arguments: [], variables: [:])
        let expression = try parser.expression()
        try parser.expectEnd()
        guard let value = Parser.constantValue(expression) else {
            throw PredicateFormatError(.syntax, "not a literal (quote strings: '\"text\"')", predicate: text, position: 0)
        }
        return value
    }
}

private struct Parser {
    let lexer: PredicateLexer
    let tokens: [PredicateToken]
    let arguments: [PredicateArgument]
    let variables: [String: String]
    var index = 0
    var argumentIndex = 0
    /// SUBQUERY iteration variables in scope; they shadow bound variables of the same name.
    var scopedVariables: [String] = []
    /// How deep the tree being built is here: parentheses, braces, NOT and minus signs, and
    /// each link of a chain of operators or key path steps. Every walk of a predicate (the
    /// compiler, the evaluator, the printers) recurses once per level, so a predicate of
    /// tens of thousands of levels would overflow the stack; past `maximumDepth` it is an
    /// error instead.
    var depth = 0
    static let maximumDepth = 256
    /// What reading a `(` as a predicate came to, by the state it was read from: shared by
    /// every copy of the parser (a way tried and abandoned is a copy), so that no `(` is read
    /// twice from the same state.
    let memo = ParenthesisMemo()

    init(_ source: String, arguments: [PredicateArgument], variables: [String: String]) throws {
        lexer = PredicateLexer(source)
        tokens = try lexer.tokens()
        self.arguments = arguments
        self.variables = variables
    }

    var token: PredicateToken { tokens[index] }
    var position: Int { token.position }

    func error(_ message: String, at position: Int? = nil) -> PredicateFormatError {
        lexer.error(message, at: position ?? self.position)
    }

    func describe(_ token: PredicateToken) -> String {
        switch token.kind {
        case .identifier(let s): return "'\(s)'"
        case .keyword(let s): return "'\(s)'"
        case .variable(let s): return "'$\(s)'"
        case .collectionOperator(let s): return "'@\(s)'"
        case .string(let s): return "string " + PredicateToken.quoted(s)
        case .integer(let i): return "number \(i)"
        case .double(let d): return "number \(d)"
        case .formatSpecifier(let s): return "'%\(s)'"
        case .punctuation(let s): return "'\(s)'"
        case .end: return "the end of the predicate"
        }
    }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    func isPunctuation(_ p: String) -> Bool { token.kind == .punctuation(p) }
    func isKeyword(_ k: String) -> Bool { token.kind == .keyword(k) }

    mutating func accept(_ p: String) -> Bool {
        guard isPunctuation(p) else { return false }
        advance()
        return true
    }

    mutating func expect(_ p: String, _ what: String) throws {
        guard accept(p) else { throw error("expected \(what), found \(describe(token))") }
    }

    /// One level deeper; the caller undoes it (`depth -= 1`) when its node is built.
    mutating func deepen() throws {
        depth += 1
        guard depth <= Parser.maximumDepth else {
            throw PredicateFormatError(.unsupported, "the predicate is nested more than \(Parser.maximumDepth) levels deep "
                                       + "(parentheses, NOT, operators or key path steps)", predicate: lexer.source, position: position)
        }
    }

    func expectEnd() throws {
        guard token.kind == .end else {
            if isPunctuation(")") { throw error("unbalanced ')'") }
            throw error("unexpected \(describe(token)) after a complete predicate")
        }
    }

    // MARK: Predicates

    mutating func predicate() throws -> Predicate {
        try deepen()
        defer { depth -= 1 }
        var terms = [try conjunction()]
        while isKeyword("OR") || isPunctuation("||") {
            advance()
            terms.append(try conjunction())
        }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    mutating func conjunction() throws -> Predicate {
        var terms = [try negation()]
        while isKeyword("AND") || isPunctuation("&&") {
            advance()
            terms.append(try negation())
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    mutating func negation() throws -> Predicate {
        if isKeyword("NOT") || isPunctuation("!") {
            advance()
            try deepen()
            defer { depth -= 1 }
            return .not(try negation())
        }
        return try primaryPredicate()
    }

    mutating func primaryPredicate() throws -> Predicate {
        if isKeyword("TRUEPREDICATE") { advance(); return .constant(true) }
        if isKeyword("FALSEPREDICATE") { advance(); return .constant(false) }
        if isPunctuation("(") {
            let key = ParenthesisMemo.Key(index: index, argumentIndex: argumentIndex, depth: depth, scope: scopedVariables)
            if let known = memo.outcomes[key] {
                index = known.index
                argumentIndex = known.argumentIndex
                return try known.result.get()
            }
            let result = Result { try parenthesised() }
            memo.outcomes[key] = ParenthesisMemo.Outcome(result: result, index: index, argumentIndex: argumentIndex)
            return try result.get()
        }
        return try comparison()
    }

    /// A parenthesised predicate, or a comparison whose left side starts with `(`.
    mutating func parenthesised() throws -> Predicate {
        memo.readings += 1
        let saved = self
        advance()
        do {
            let inner = try predicate()
            try expect(")", "')'")
            return inner
        } catch let first as PredicateFormatError {
            // Too deep is too deep whichever way the parenthesis is read.
            if first.kind == .unsupported { throw first }
            let reached = self.position
            self = saved
            do {
                return try comparison()
            } catch let second as PredicateFormatError {
                throw second.position >= max(first.position, reached) ? second : first
            }
        }
    }

    mutating func comparison() throws -> Predicate {
        var modifier = ComparisonModifier.direct
        switch token.kind {
        case .keyword("ANY"), .keyword("SOME"): modifier = .any; advance()
        case .keyword("ALL"): modifier = .all; advance()
        case .keyword("NONE"): modifier = .notAny; advance()
        default: break
        }
        if case .end = token.kind { throw error("expected a predicate, found the end of the predicate") }
        let left = try expression()
        let opPosition = position
        let op = try comparisonOperator()
        let options = try comparisonOptions()
        let right = try expression()
        return .comparison(Comparison(modifier: modifier, left: left, op: op, options: options, right: right, position: opPosition))
    }

    mutating func comparisonOperator() throws -> ComparisonOperator {
        let found = token
        switch found.kind {
        case .punctuation(let p):
            let table: [String: ComparisonOperator] = ["==": .equal, "=": .equal, "!=": .notEqual, "<>": .notEqual,
                                                       "<": .less, "<=": .lessOrEqual, "=<": .lessOrEqual,
                                                       ">": .greater, ">=": .greaterOrEqual, "=>": .greaterOrEqual]
            if let op = table[p] {
                advance()
                if isPunctuation("=") || isPunctuation("==") { throw error("no such operator '\(p)=' (use ==)", at: found.position) }
                return op
            }
        case .keyword(let k):
            if let op = ComparisonOperator(rawValue: k) { advance(); return op }
            if k == "NOT" {
                throw error("there is no NOT IN (or NOT LIKE…) operator; write NOT (x IN …)")
            }
        case .end:
            throw error("expected a comparison operator after the expression, found the end of the predicate")
        default:
            break
        }
        throw error("expected a comparison operator (==, !=, <, >, IN, LIKE, …), found \(describe(found))")
    }

    mutating func comparisonOptions() throws -> ComparisonOptions {
        guard isPunctuation("[") else { return [] }
        let start = position
        advance()
        guard case .identifier(let letters) = token.kind else { throw error("expected option letters c, d, n or l inside [ ]") }
        var options: ComparisonOptions = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": options.insert(.localeSensitive)
            default: throw error("unknown comparison option '\(letter)' (use c, d, n or l)")
            }
        }
        advance()
        guard accept("]") else { throw error("expected ']' to close the options opened", at: start) }
        return options
    }

    // MARK: Expressions

    mutating func expression() throws -> PredicateOperand {
        try deepen()
        var chain = 1
        defer { depth -= chain }
        var left = try term()
        while isPunctuation("+") || isPunctuation("-") {
            let op: ArithmeticOperator = isPunctuation("+") ? .add : .subtract
            advance()
            try deepen()
            chain += 1
            let right = try term()
            left = PredicateOperand(.arithmetic(op, left, right), at: left.position)
        }
        return left
    }

    mutating func term() throws -> PredicateOperand {
        var chain = 0
        defer { depth -= chain }
        var left = try power()
        while isPunctuation("*") || isPunctuation("/") {
            try deepen()
            chain += 1
            let op: ArithmeticOperator = isPunctuation("*") ? .multiply : .divide
            advance()
            let right = try power()
            left = PredicateOperand(.arithmetic(op, left, right), at: left.position)
        }
        return left
    }

    mutating func power() throws -> PredicateOperand {
        var chain = 0
        defer { depth -= chain }
        var left = try unary()
        while accept("**") {
            try deepen()
            chain += 1
            let right = try unary()
            left = PredicateOperand(.arithmetic(.power, left, right), at: left.position)
        }
        return left
    }

    mutating func unary() throws -> PredicateOperand {
        let start = position
        if accept("-") {
            try deepen()
            defer { depth -= 1 }
            let operand = try unary()
            switch operand.kind {
            case .constant(.integer(let i)): return PredicateOperand(.constant(.integer(-i)), at: start)
            case .constant(.double(let d)): return PredicateOperand(.constant(.double(-d)), at: start)
            default: return PredicateOperand(.negate(operand), at: start)
            }
        }
        return try postfix()
    }

    mutating func postfix() throws -> PredicateOperand {
        var chain = 0
        defer { depth -= chain }
        var node = try primary()
        while true {
            if isPunctuation(".") || isPunctuation("[") {
                try deepen()
                chain += 1
            }
            if accept(".") {
                let keyPosition = position
                switch token.kind {
                case .identifier(let key): advance(); node = PredicateOperand(.keyPath(node, key), at: node.position)
                case .collectionOperator(let op): advance(); node = PredicateOperand(.keyPath(node, "@" + op), at: node.position)
                case .formatSpecifier("K"):
                    for key in try keyPathArgument() { node = PredicateOperand(.keyPath(node, key), at: node.position) }
                case .keyword(let word):
                    throw error("'\(word)' is a reserved word; write #\(word.lowercased()) to use it as a key", at: keyPosition)
                default:
                    throw error("expected a key after '.', found \(describe(token))")
                }
            } else if isPunctuation("[") {
                advance()
                let kind: IndexKind
                switch token.kind {
                case .keyword("FIRST"): advance(); kind = .first
                case .keyword("LAST"): advance(); kind = .last
                case .keyword("SIZE"): advance(); kind = .size
                default: kind = .expression(try expression())
                }
                try expect("]", "']'")
                node = PredicateOperand(.index(node, kind), at: node.position)
            } else {
                return node
            }
        }
    }

    mutating func primary() throws -> PredicateOperand {
        let start = position
        let found = token
        switch found.kind {
        case .integer(let i): advance(); return PredicateOperand(.constant(.integer(i)), at: start)
        case .double(let d): advance(); return PredicateOperand(.constant(.double(d)), at: start)
        case .string(let s): advance(); return PredicateOperand(.constant(.string(s)), at: start)
        case .identifier(let name):
            advance()
            if isPunctuation("(") { return try functionCall(name, at: start) }
            return PredicateOperand(.keyPath(PredicateOperand(.evaluatedObject, at: start), name), at: start)
        case .collectionOperator(let op):
            advance()
            return try prefixCollectionOperator(op, at: start)
        case .variable(let name):
            advance()
            if !scopedVariables.contains(name), let text = variables[name] {
                return PredicateOperand(.constant(try literal(text, what: "variable $\(name)", at: start)), at: start)
            }
            return PredicateOperand(.variable(name), at: start)
        case .formatSpecifier(let spec):
            advance()
            if spec == "K" {
                var node = PredicateOperand(.evaluatedObject, at: start)
                for key in try keyPathArgument(at: start) { node = PredicateOperand(.keyPath(node, key), at: start) }
                return node
            }
            return PredicateOperand(.constant(try valueArgument(spec, at: start)), at: start)
        case .keyword(let word):
            advance()
            switch word {
            case "TRUE", "YES": return PredicateOperand(.constant(.bool(true)), at: start)
            case "FALSE", "NO": return PredicateOperand(.constant(.bool(false)), at: start)
            case "NULL", "NIL": return PredicateOperand(.constant(.null), at: start)
            case "SELF": return PredicateOperand(.evaluatedObject, at: start)
            case "SUBQUERY": return try subquery(at: start)
            case "CAST": return try cast(at: start)
            case "FUNCTION": return try selectorCall(at: start)
            default:
                index -= 1
                throw error("'\(word)' is a reserved word; write #\(word.lowercased()) to use it as a key", at: start)
            }
        case .punctuation("{"):
            advance()
            var items: [PredicateOperand] = []
            if !accept("}") {
                repeat { items.append(try expression()) } while accept(",")
                try expect("}", "',' or '}'")
            }
            let values = items.compactMap(Parser.constantValue)
            if values.count == items.count { return PredicateOperand(.constant(.array(values)), at: start) }
            return PredicateOperand(.aggregate(items), at: start)
        case .punctuation("("):
            advance()
            let inner = try expression()
            try expect(")", "')'")
            return inner
        case .end:
            throw error("expected an expression, found the end of the predicate")
        default:
            throw error("expected an expression, found \(describe(found))")
        }
    }

    static let functionNames: Set<String> = ["sum", "count", "min", "max", "average", "median", "mode", "stddev",
                                             "sqrt", "log", "ln", "exp", "floor", "ceiling", "abs", "trunc",
                                             "random", "randomn", "now", "uppercase", "lowercase"]

    mutating func functionCall(_ name: String, at start: Int) throws -> PredicateOperand {
        guard Parser.functionNames.contains(name) else { throw error("unknown function '\(name)'", at: start) }
        try expect("(", "'('")
        var arguments: [PredicateOperand] = []
        if !accept(")") {
            repeat { arguments.append(try expression()) } while accept(",")
            try expect(")", "')'")
        }
        return PredicateOperand(.function(name, arguments), at: start)
    }

    /// The old prefix form `@sum.items.price` means `items.@sum.price`.
    mutating func prefixCollectionOperator(_ op: String, at start: Int) throws -> PredicateOperand {
        var keys: [String] = []
        while accept(".") {
            guard case .identifier(let key) = token.kind else { throw error("expected a key after '.'") }
            keys.append(key)
            advance()
        }
        var node = PredicateOperand(.evaluatedObject, at: start)
        if keys.isEmpty || op.lowercased() == "count" {
            for key in keys { node = PredicateOperand(.keyPath(node, key), at: start) }
            return PredicateOperand(.keyPath(node, "@" + op), at: start)
        }
        for key in keys.dropLast() { node = PredicateOperand(.keyPath(node, key), at: start) }
        node = PredicateOperand(.keyPath(node, "@" + op), at: start)
        return PredicateOperand(.keyPath(node, keys.last!), at: start)
    }

    mutating func subquery(at start: Int) throws -> PredicateOperand {
        try expect("(", "'(' after SUBQUERY")
        let collection = try expression()
        try expect(",", "',' after the SUBQUERY collection")
        guard case .variable(let name) = token.kind else { throw error("expected the SUBQUERY variable ($x)") }
        advance()
        try expect(",", "',' after the SUBQUERY variable")
        scopedVariables.append(name)
        defer { scopedVariables.removeLast() }
        let inner = try predicate()
        try expect(")", "')' to close SUBQUERY")
        return PredicateOperand(.subquery(collection: collection, variable: name, predicate: inner), at: start)
    }

    mutating func cast(at start: Int) throws -> PredicateOperand {
        try expect("(", "'(' after CAST")
        let value = try expression()
        try expect(",", "',' and a type name in CAST")
        guard case .constant(.string(let type)) = try expression().kind else {
            throw error("CAST needs a class name in quotes, as in CAST(0, \"NSDate\")")
        }
        try expect(")", "')' to close CAST")
        if type == "NSDate", case .constant(let v) = value.kind, let seconds = v.number {
            return PredicateOperand(.constant(.date(seconds)), at: start)
        }
        return PredicateOperand(.cast(value, type), at: start)
    }

    mutating func selectorCall(at start: Int) throws -> PredicateOperand {
        try expect("(", "'(' after FUNCTION")
        let receiver = try expression()
        try expect(",", "',' and a selector name in FUNCTION")
        guard case .constant(.string(let selector)) = try expression().kind else {
            throw error("FUNCTION needs a selector name in quotes")
        }
        var arguments: [PredicateOperand] = []
        while accept(",") { arguments.append(try expression()) }
        try expect(")", "')' to close FUNCTION")
        return PredicateOperand(.selectorCall(receiver, selector, arguments), at: start)
    }

    // MARK: Substitutions

    mutating func nextArgument(_ spec: String, at position: Int) throws -> PredicateArgument {
        guard argumentIndex < arguments.count else {
            var missing = error("%\(spec) needs an argument: only \(arguments.count) given", at: position)
            missing.missing = .argument
            throw missing
        }
        defer { argumentIndex += 1 }
        return arguments[argumentIndex]
    }

    mutating func keyPathArgument(at position: Int? = nil) throws -> [String] {
        let at = position ?? self.position
        if position == nil { advance() }
        let argument = try nextArgument("K", at: at)
        guard let text = argument.keyPathText else {
            throw error("argument \(argumentIndex) for %K is not a key path: \(argument.shown)", at: at)
        }
        let keys = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !text.isEmpty, !keys.contains(where: \.isEmpty) else {
            throw error("argument \(argumentIndex) for %K is not a key path: '\(text)'", at: at)
        }
        return keys
    }

    mutating func valueArgument(_ spec: String, at position: Int) throws -> PredicateValue {
        let argument = try nextArgument(spec, at: position)
        let text = argument.shown
        let value: PredicateValue
        switch argument {
        case .written(let written):
            // An ISO 8601 date, unquoted (`2025-08-01`, `2025-08-01T09:30:00Z`): the NSDate an
            // app passes for a %@, stored as seconds since 2001-01-01.
            if spec == "@", let seconds = Self.isoDate(written) {
                value = .date(seconds)
            } else {
                value = try literal(written, what: "argument \(argumentIndex) for %\(spec)", at: position)
            }
        case .value(let typed): value = typed
        }
        switch spec {
        case "@": return value
        case "f", "lf", "e", "g":
            guard let n = value.number else { throw error("argument \(argumentIndex) for %\(spec) must be a number, not \(text)", at: position) }
            return .double(n)
        default:
            switch value {
            case .integer, .bool: return value
            case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return .integer(Int64(d))
            default: throw error("argument \(argumentIndex) for %\(spec) must be an integer, not \(text)", at: position)
            }
        }
    }

    /// Seconds since 2001-01-01 of an ISO 8601 date or date-time written without quotes; nil
    /// for anything else (a number, `2025 - 8` as arithmetic is not a date).
    static func isoDate(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[0..<4].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), bytes.count == 10 || bytes[10] == UInt8(ascii: "T") else { return nil }
        return ValueParsing.parseDate(text)
    }

    func literal(_ text: String, what: String, at position: Int) throws -> PredicateValue {
        do {
            return try PredicateParser.parseLiteral(text)
        } catch let e as PredicateFormatError {
            throw error("\(what) is not a literal: \(e.message) in \(text) (quote strings: '\"text\"')", at: position)
        }
    }

    static func constantValue(_ e: PredicateOperand) -> PredicateValue? {
        switch e.kind {
        case .constant(let v): return v
        case .aggregate(let items):
            let values = items.compactMap(constantValue)
            return values.count == items.count ? .array(values) : nil
        default: return nil
        }
    }
}

/// The outcomes of reading a `(` as a predicate, by the parser's state where it was read:
/// a reference, so that the copies of the parser that try one way and are abandoned share it.
private final class ParenthesisMemo {
    struct Key: Hashable {
        let index: Int
        let argumentIndex: Int
        let depth: Int
        let scope: [String]
    }

    struct Outcome {
        let result: Result<Predicate, any Error>
        /// Where the reading stopped, after it or where it failed (the error chosen between
        /// the two ways depends on how far each got).
        let index: Int
        let argumentIndex: Int
    }

    var outcomes: [Key: Outcome] = [:]
    /// How many times a `(` was read as a predicate: what the memo bounds.
    var readings = 0
}

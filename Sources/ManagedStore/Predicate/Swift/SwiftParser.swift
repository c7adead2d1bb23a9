/// Parses Swift predicate source: `#Predicate<Entity> { … }`, or a bare closure `{ $0.… }`
/// / `{ person in … }`, into a `SwiftNode` tree with Swift's precedence: `? :` below `||`,
/// below `&&`, below comparisons, below `??`, below `+ -`, below `* / %`, below prefix
/// `! -`, below the postfix forms (`.name`, `?.name`, `!`, calls, trailing closures).
struct SwiftParser {
    /// A whole predicate: the entity the macro names (nil for a bare closure) and its closure.
    struct Source {
        var entity: String?
        var entityPosition: Int
        var closure: SwiftNode
    }

    let lexer: SwiftLexer
    let tokens: [SwiftToken]
    var index = 0
    var depth = 0
    static let maximumDepth = 256

    init(_ source: String) throws {
        lexer = SwiftLexer(source)
        tokens = try lexer.tokens()
    }

    var token: SwiftToken { tokens[index] }
    var position: Int { token.position }

    func error(_ message: String, at position: Int? = nil) -> PredicateFormatError {
        lexer.error(message, at: position ?? self.position)
    }

    mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    func isPunctuation(_ p: String) -> Bool { token.kind == .punctuation(p) }

    mutating func accept(_ p: String) -> Bool {
        guard isPunctuation(p) else { return false }
        advance()
        return true
    }

    mutating func expect(_ p: String, _ what: String) throws {
        guard accept(p) else { throw error("expected \(what), found \(describe(token))") }
    }

    func describe(_ token: SwiftToken) -> String {
        switch token.kind {
        case .identifier(let s): return "'\(s)'"
        case .anonymous(let n): return "'$\(n)'"
        case .pound(let s): return "'#\(s)'"
        case .string(let s): return "string " + PredicateToken.quoted(s)
        case .integer(let i): return "number \(i)"
        case .double(let d): return "number \(d)"
        case .punctuation(let s): return "'\(s)'"
        case .end: return "the end of the predicate"
        }
    }

    mutating func deepen() throws {
        depth += 1
        guard depth <= SwiftParser.maximumDepth else {
            throw PredicateFormatError(.unsupported, "the predicate is nested more than \(SwiftParser.maximumDepth) levels deep",
                                       predicate: lexer.source, position: position)
        }
    }

    // MARK: The predicate

    mutating func source() throws -> Source {
        var entity: String?
        var entityPosition = position
        if case .pound(let name) = token.kind {
            guard name == "Predicate" else { throw error("expected #Predicate, found '#\(name)'") }
            advance()
            if accept("<") {
                entityPosition = position
                entity = try typeName()
                if accept(",") { throw error("a #Predicate for a fetch has one input type, the model class", at: entityPosition) }
                try expect(">", "'>' after the model type")
            }
            let parenthesised = accept("(")
            guard isPunctuation("{") else { throw error("expected the predicate's closure '{ … }', found \(describe(token))") }
            let closure = try self.closure()
            if parenthesised { try expect(")", "')'") }
            try expectEnd()
            if entity == nil, case .closure(let parameters, _) = closure.kind, let type = parameters.first?.type {
                entity = type
            }
            return Source(entity: entity, entityPosition: entityPosition, closure: closure)
        }
        guard isPunctuation("{") else { throw error("expected #Predicate<Entity> { … } or a closure { … }") }
        let closure = try self.closure()
        try expectEnd()
        var type: String?
        if case .closure(let parameters, _) = closure.kind { type = parameters.first?.type }
        return Source(entity: type, entityPosition: closure.position, closure: closure)
    }

    func expectEnd() throws {
        guard token.kind == .end else { throw error("unexpected \(describe(token)) after the predicate's closure") }
    }

    /// `Person`, `Module.Person`: the last component names the entity.
    mutating func typeName() throws -> String {
        guard case .identifier(var name) = token.kind else { throw error("expected a type name, found \(describe(token))") }
        advance()
        while isPunctuation("."), case .identifier(let next) = tokens[index + 1].kind {
            advance(); advance()
            name = next
        }
        if isPunctuation("<") { throw error("a generic type is not a model class") }
        return name
    }

    // MARK: Closures

    mutating func closure() throws -> SwiftNode {
        let start = position
        try expect("{", "'{'")
        try deepen()
        defer { depth -= 1 }
        let parameters = try closureParameters()
        if case .identifier("return") = token.kind { advance() }
        if case .identifier(let word) = token.kind, ["let", "var", "if", "guard", "switch", "for", "while"].contains(word) {
            throw error("'\(word)' statements are not supported; the closure must be one expression")
        }
        let body = try expression()
        _ = accept(";")
        guard accept("}") else {
            if token.kind == .end { throw error("expected '}' to close the closure opened here", at: start) }
            throw error("expected '}' after the closure's expression, found \(describe(token)); a predicate closure is one expression")
        }
        return SwiftNode(.closure(parameters: parameters, body: body), at: start)
    }

    /// `a in`, `a, b in`, `(a) in`, `(a: Person) in`, `_ in`; none when the body uses `$0`.
    mutating func closureParameters() throws -> [SwiftParameter] {
        let saved = index
        var parameters: [SwiftParameter] = []
        if accept("(") {
            while case .identifier(let name) = token.kind {
                advance()
                var type: String?
                if accept(":") { type = try typeName() }
                parameters.append(SwiftParameter(name: name, type: type))
                if !accept(",") { break }
            }
            guard accept(")"), case .identifier("in") = token.kind else { index = saved; return [] }
            advance()
            return parameters
        }
        while case .identifier(let name) = token.kind, name != "return" {
            advance()
            parameters.append(SwiftParameter(name: name, type: nil))
            if !accept(",") { break }
        }
        guard !parameters.isEmpty, case .identifier("in") = token.kind else { index = saved; return [] }
        advance()
        return parameters
    }

    // MARK: Expressions

    mutating func expression() throws -> SwiftNode {
        try deepen()
        defer { depth -= 1 }
        let condition = try binary(level: 0)
        guard isPunctuation("?"), token.spaced else { return condition }
        advance()
        let then = try expression()
        try expect(":", "':' of the conditional")
        let otherwise = try expression()
        return SwiftNode(.ternary(condition, then, otherwise), at: condition.position)
    }

    /// Levels from loosest to tightest; `??` groups to the right, comparisons do not chain.
    static let levels: [[String]] = [["||"], ["&&"], ["==", "!=", "<", "<=", ">", ">=", "===", "!=="], ["??"], ["...", "..<"], ["+", "-"], ["*", "/", "%"]]

    mutating func binary(level: Int) throws -> SwiftNode {
        guard level < SwiftParser.levels.count else { return try prefix() }
        var left = try binary(level: level + 1)
        let operators = SwiftParser.levels[level]
        // Each link of a chain (`a && b && c …`) is one level deeper in the tree.
        var links = 0
        defer { depth -= links }
        while case .punctuation(let op) = token.kind, operators.contains(op) {
            let at = position
            advance()
            links += 1
            try deepen()
            if op == "??" {
                let right = try binary(level: level)
                return SwiftNode(.binary(op, left, right), at: at)
            }
            let right = try binary(level: level + 1)
            left = SwiftNode(.binary(op, left, right), at: at)
            if level == 2, case .punctuation(let next) = token.kind, operators.contains(next) {
                throw error("comparisons do not chain in Swift; join them with &&")
            }
        }
        return left
    }

    mutating func prefix() throws -> SwiftNode {
        let start = position
        if isPunctuation("!") || isPunctuation("-") || isPunctuation("+") {
            guard case .punctuation(let op) = token.kind else { return try postfix() }
            advance()
            try deepen()
            defer { depth -= 1 }
            let operand = try prefix()
            if op == "+" { return operand }
            return SwiftNode(.prefix(op, operand), at: start)
        }
        return try postfix()
    }

    mutating func postfix() throws -> SwiftNode {
        var node = try primary()
        var links = 0
        defer { depth -= links }
        while true {
            let at = position
            if isPunctuation("."), case .identifier(let name) = tokens[index + 1].kind {
                advance(); advance()
                node = SwiftNode(.member(node, name), at: at)
            } else if isPunctuation("?."), case .identifier(let name) = tokens[index + 1].kind {
                advance(); advance()
                node = SwiftNode(.optionalMember(node, name), at: at)
            } else if isPunctuation("!"), !token.spaced {
                advance()
                node = SwiftNode(.forceUnwrap(node), at: at)
            } else if isPunctuation("("), !token.spaced {
                advance()
                let arguments = try callArguments()
                node = SwiftNode(.call(node, arguments), at: at)
            } else if isPunctuation("{") {
                let closure = try self.closure()
                // `x.contains { … }` adds its closure to a call; `x.contains(…) { … }` too.
                if case .call(let callee, var arguments) = node.kind {
                    arguments.append(SwiftArgument(label: nil, value: closure))
                    node = SwiftNode(.call(callee, arguments), at: node.position)
                } else {
                    node = SwiftNode(.call(node, [SwiftArgument(label: nil, value: closure)]), at: at)
                }
            } else if isPunctuation("["), !token.spaced {
                throw error("subscripts are not supported in a predicate")
            } else {
                return node
            }
            links += 1
            try deepen()
        }
    }

    mutating func callArguments() throws -> [SwiftArgument] {
        var arguments: [SwiftArgument] = []
        if accept(")") { return arguments }
        while true {
            var label: String?
            if case .identifier(let name) = token.kind, tokens[index + 1].kind == .punctuation(":") {
                label = name
                advance(); advance()
            }
            arguments.append(SwiftArgument(label: label, value: try expression()))
            if accept(")") { return arguments }
            try expect(",", "',' or ')' in the argument list")
        }
    }

    mutating func primary() throws -> SwiftNode {
        let start = position
        switch token.kind {
        case .identifier(let name):
            advance()
            switch name {
            case "true": return SwiftNode(.bool(true), at: start)
            case "false": return SwiftNode(.bool(false), at: start)
            case "nil": return SwiftNode(.nilLiteral, at: start)
            default: return SwiftNode(.identifier(name), at: start)
            }
        case .anonymous(let n):
            advance()
            return SwiftNode(.anonymous(n), at: start)
        case .integer(let n):
            advance()
            return SwiftNode(.integer(n), at: start)
        case .double(let d):
            advance()
            return SwiftNode(.double(d), at: start)
        case .string(let s):
            advance()
            return SwiftNode(.string(s), at: start)
        case .punctuation("("):
            advance()
            try deepen()
            defer { depth -= 1 }
            let inner = try expression()
            if isPunctuation(",") { throw error("tuples are not supported in a predicate") }
            try expect(")", "')'")
            return inner
        case .punctuation("["):
            advance()
            var items: [SwiftNode] = []
            if !accept("]") {
                while true {
                    items.append(try expression())
                    if accept("]") { break }
                    try expect(",", "',' or ']' in the array literal")
                    if accept("]") { break }
                }
            }
            return SwiftNode(.array(items), at: start)
        case .punctuation("."):
            guard case .identifier(let name) = tokens[index + 1].kind else { throw error("expected a member name after '.'") }
            advance(); advance()
            return SwiftNode(.implicitMember(name), at: start)
        case .punctuation("\\"):
            advance()
            var keys: [String] = []
            if case .identifier = token.kind { _ = try typeName() }
            while accept(".") {
                guard case .identifier(let name) = token.kind else { throw error("expected a property name in the key path") }
                keys.append(name)
                advance()
            }
            guard !keys.isEmpty else { throw error("expected a key path such as \\.name", at: start) }
            return SwiftNode(.keyPath(keys), at: start)
        case .punctuation("{"):
            return try closure()
        case .pound(let name):
            throw error("'#\(name)' is not supported inside a predicate")
        case .end:
            throw error("expected an expression, found the end of the predicate")
        default:
            throw error("expected an expression, found \(describe(token))")
        }
    }
}

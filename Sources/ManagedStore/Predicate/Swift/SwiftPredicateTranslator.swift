/// Turns a parsed Swift predicate closure into the `Predicate` it means. Each Swift form maps
/// to the NSPredicate construct SwiftData's translation gives it; what has no SQL form is an
/// error at the construct, naming the NSPredicate spelling where one exists.
struct SwiftPredicateTranslator {
    let text: String
    let model: ManagedObjectModel?
    let variables: [String: PredicateValue]

    /// A closure's parameters in scope: what `$0` or the names stand for.
    struct Scope {
        var names: [String]
        var base: PredicateOperand
        var entity: String?
    }
    var scopes: [Scope] = []
    var subqueryCount = 0
    /// Enum cases compared with the fetched object's attributes, read by their names.
    var enumCases: [SwiftPredicateReader.EnumCase] = []

    init(text: String, model: ManagedObjectModel?, variables: [String: PredicateValue]) {
        self.text = text
        self.model = model
        self.variables = variables
    }

    /// What an operand is, as far as the model says: it decides how `count`, `isEmpty`,
    /// `contains` and an enum case read.
    enum Kind: Equatable {
        case object(String?)
        case toMany(String?)
        case attribute(AttributeType)
        case composite(AttributeDescription)
        case constant
        case enumCase(String)
        /// The `Date` type, `Kind` of `Drink.Kind.hot`, …: a name the closure does not bind.
        case typeName([String])
        case unknown
    }

    struct Typed {
        var operand: PredicateOperand
        var kind: Kind
        /// `x.lowercased()`: compared as `[c]` against a constant already in lower case.
        var folded = false
    }

    func error(_ message: String, at position: Int, _ kind: PredicateFormatError.Kind = .unsupported) -> PredicateFormatError {
        PredicateFormatError(kind, message, predicate: text, position: position)
    }

    // MARK: The closure

    mutating func root(_ closure: SwiftNode, entity: String?) throws -> Predicate {
        guard case .closure(let parameters, let body) = closure.kind else { throw error("expected a closure", at: closure.position) }
        if parameters.count > 1 { throw error("a fetch's predicate takes one parameter, the object", at: closure.position) }
        scopes.append(Scope(names: parameters.isEmpty ? ["$0"] : parameters.map(\.name),
                            base: PredicateOperand(.evaluatedObject, at: closure.position), entity: entity))
        defer { scopes.removeLast() }
        return try predicate(body)
    }

    // MARK: Predicates

    mutating func predicate(_ node: SwiftNode) throws -> Predicate {
        switch node.kind {
        case .bool(let b):
            return .constant(b)
        case .binary("&&", let a, let b):
            return Self.withoutRedundantNilTests(flatten(try predicate(a), and: true) + flatten(try predicate(b), and: true))
        case .binary("||", let a, let b):
            return .or(flatten(try predicate(a), and: false) + flatten(try predicate(b), and: false))
        case .prefix("!", let a):
            return .not(try predicate(a))
        case .binary(let op, let a, let b) where SwiftPredicateTranslator.comparisons[op] != nil || op == "===" || op == "!==":
            return try comparison(op, a, b, at: node.position)
        case .ternary(let c, let a, let b):
            // `c ? a : b` is `(c && a) || (!c && b)` for booleans.
            let condition = try predicate(c)
            return .or([.and([condition, try predicate(a)]), .and([.not(condition), try predicate(b)])])
        case .call(let callee, let arguments):
            return try call(callee, arguments, at: node.position)
        case .member(let base, "isEmpty"), .optionalMember(let base, "isEmpty"):
            return try isEmpty(base, at: node.position)
        case .binary("??", let value, let fallback):
            // `flag ?? false`: the flag where it is set, the fallback where it is nil.
            let typed = try operand(value)
            let isNil = comparisonOf(typed.operand, .equal, PredicateOperand(.constant(.null), at: node.position), at: node.position)
            return .or([.and([.not(isNil), truth(typed, at: node.position)]), .and([isNil, try predicate(fallback)])])
        default:
            let typed = try operand(node)
            switch typed.kind {
            case .constant:
                guard case .constant(.bool(let b)) = typed.operand.kind else { throw error("a predicate must be a Bool expression", at: node.position) }
                return .constant(b)
            case .attribute(let type) where type != .boolean:
                throw error("a predicate must be a Bool expression, and this is \(type.withArticle)", at: node.position)
            case .object, .toMany, .composite, .enumCase, .typeName:
                throw error("a predicate must be a Bool expression, and this is not one", at: node.position)
            default:
                return truth(typed, at: node.position)
            }
        }
    }

    /// `x != nil && x > 30` is how Swift unwraps an optional before comparing it, and `x > 30`
    /// alone never matches nil: the nil test adds nothing to the fetch, and is dropped so that
    /// the SQL is the NSPredicate's.
    static func withoutRedundantNilTests(_ items: [Predicate]) -> Predicate {
        var writer = NSPredicateWriter()
        let nilTests = items.enumerated().compactMap { index, item -> (Int, String)? in
            guard case .comparison(let c) = item, c.modifier == .direct, c.op == .notEqual, c.right.kind == .constant(.null) else { return nil }
            return (index, writer.operand(c.left))
        }
        let refusingNil: Set<ComparisonOperator> = [.less, .lessOrEqual, .greater, .greaterOrEqual, .contains, .beginsWith, .endsWith, .in, .between, .like, .matches]
        var drop = Set<Int>()
        for (index, key) in nilTests {
            let guarded = items.contains { item in
                guard case .comparison(let c) = item, c.modifier == .direct, refusingNil.contains(c.op) else { return false }
                return writer.operand(c.left) == key
            }
            if guarded { drop.insert(index) }
        }
        let kept = items.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
        return kept.count == 1 ? kept[0] : .and(kept)
    }

    /// A Bool-valued key path as a predicate: `isActive == YES`.
    func truth(_ typed: Typed, at position: Int) -> Predicate {
        comparisonOf(typed.operand, .equal, PredicateOperand(.constant(.bool(true)), at: position), at: position)
    }

    func flatten(_ p: Predicate, and: Bool) -> [Predicate] {
        switch p {
        case .and(let items) where and: return items
        case .or(let items) where !and: return items
        default: return [p]
        }
    }

    func comparisonOf(_ left: PredicateOperand, _ op: ComparisonOperator, _ right: PredicateOperand,
                      options: ComparisonOptions = [], modifier: ComparisonModifier = .direct, at position: Int) -> Predicate {
        .comparison(Comparison(modifier: modifier, left: left, op: op, options: options, right: right, position: position))
    }

    static let comparisons: [String: ComparisonOperator] = ["==": .equal, "!=": .notEqual, "<": .less, "<=": .lessOrEqual,
                                                             ">": .greater, ">=": .greaterOrEqual]

    mutating func comparison(_ op: String, _ a: SwiftNode, _ b: SwiftNode, at position: Int) throws -> Predicate {
        guard let comparisonOperator = SwiftPredicateTranslator.comparisons[op] else {
            throw error("'\(op)' compares object identity, which a fetch cannot; compare with ==", at: position)
        }
        // `(x ?? c) op y`: x where it is set, c where it is nil.
        for (side, other, flipped) in [(a, b, false), (b, a, true)] {
            guard case .binary("??", let value, let fallback) = side.kind else { continue }
            let set = try comparison(op, flipped ? other : value, flipped ? value : other, at: position)
            let unset = try comparison(op, flipped ? other : fallback, flipped ? fallback : other, at: position)
            let typed = try operand(value)
            // A count is never nil: `(cars?.count ?? 0) > 2` is the count's comparison.
            if isCount(typed.operand) { return set }
            let isNil = comparisonOf(typed.operand, .equal, PredicateOperand(.constant(.null), at: side.position), at: side.position)
            switch Self.fold(unset) {
            case true?: return .or([isNil, set])
            case false?: return .and([.not(isNil), set])
            case nil: return .or([.and([.not(isNil), set]), .and([isNil, unset])])
            }
        }
        // `p == true`, `p != false`, where p is a Bool-valued construct (a search, isEmpty, …).
        for (side, other) in [(a, b), (b, a)] {
            guard case .bool(let b) = other.kind, Self.isPredicateForm(side) else { continue }
            let p = try predicate(side)
            return (b == (comparisonOperator == .equal)) ? p : .not(p)
        }
        // `a.caseInsensitiveCompare(b) == .orderedSame`
        for (side, other) in [(a, b), (b, a)] {
            guard case .call(let callee, let arguments) = side.kind, case let (receiver, "caseInsensitiveCompare")? = Self.member(callee) else { continue }
            guard case .implicitMember("orderedSame") = other.kind, comparisonOperator == .equal || comparisonOperator == .notEqual,
                  arguments.count == 1, arguments[0].label == nil else {
                throw error("caseInsensitiveCompare(_:) is supported compared == or != to .orderedSame (NSPredicate: ==[c])", at: side.position)
            }
            let left = try operand(receiver)
            let right = try operand(arguments[0].value)
            return comparisonOf(left.operand, comparisonOperator, right.operand, options: .caseInsensitive, at: position)
        }
        var left = try operand(a)
        var right = try operand(b)
        try resolveEnumCase(&left, against: right)
        try resolveEnumCase(&right, against: left)
        for (side, node) in [(left, a), (right, b)] {
            if case .typeName(let path) = side.kind {
                throw error("\(path.joined(separator: ".")) is a type, not a value a predicate can compare", at: node.position)
            }
        }
        var options: ComparisonOptions = []
        if left.folded || right.folded {
            guard comparisonOperator == .equal || comparisonOperator == .notEqual else {
                throw error("lowercased() and uppercased() are supported only in == and != (NSPredicate: ==[c])", at: position)
            }
            try checkFolded(left, right, at: position)
            options = .caseInsensitive
        }
        try checkTypes(left, right, at: position)
        if case .toMany = left.kind, !isCount(left.operand) { throw toManyCompared(at: a.position) }
        if case .toMany = right.kind, !isCount(right.operand) { throw toManyCompared(at: b.position) }
        return comparisonOf(left.operand, comparisonOperator, right.operand, options: options, at: position)
    }

    /// A comparison Swift would not compile (`SwiftComparability`) is an error here too.
    func checkTypes(_ left: Typed, _ right: Typed, at position: Int) throws {
        for (attribute, other) in [(left, right), (right, left)] {
            guard case .attribute(let type) = attribute.kind, case .constant(let value) = other.operand.kind,
                  let (what, with) = SwiftComparability.mismatch(type, value) else { continue }
            throw error("\(what) is compared with \(with); Swift compares values of one type", at: position)
        }
    }

    func isCount(_ operand: PredicateOperand) -> Bool {
        if case .keyPath(_, "@count") = operand.kind { return true }
        return false
    }

    func toManyCompared(at position: Int) -> PredicateFormatError {
        error("a to-many relationship cannot be compared as a whole; use contains(where:), allSatisfy or count", at: position)
    }

    /// The constant compared with a `lowercased()` value must be lower case itself (and upper
    /// case for `uppercased()`), or the comparison is not the `[c]` comparison it reads as.
    func checkFolded(_ left: Typed, _ right: Typed, at position: Int) throws {
        let constant = left.folded ? right : left
        guard case .constant(.string(let s)) = constant.operand.kind, s == s.lowercased() || s == s.uppercased() else {
            throw error("a lowercased() or uppercased() value is supported only against a string constant of that case (NSPredicate: [c])", at: position)
        }
    }

    /// Whether a node is Bool-valued as a predicate rather than as a stored attribute.
    static func isPredicateForm(_ node: SwiftNode) -> Bool {
        switch node.kind {
        case .call, .prefix("!", _), .binary, .ternary: return true
        case .member(_, "isEmpty"), .optionalMember(_, "isEmpty"): return true
        default: return false
        }
    }

    /// The answer of a comparison between constants, when it has one.
    static func fold(_ p: Predicate) -> Bool? {
        guard case .comparison(let c) = p, case .constant = c.left.kind, case .constant = c.right.kind else { return nil }
        return try? PredicateEvaluator().evaluate(p, with: NoObject())
    }

    struct NoObject: PredicateEvaluable {
        func value(forKey key: String) throws -> EvaluatedValue { .null }
        var evaluationIdentity: AnyHashable { 0 }
    }

    /// `.hot` or `Drink.Kind.hot.rawValue` against an attribute: the raw value, which for a
    /// String-backed enum is the case's name. An integer raw value is not in the model.
    mutating func resolveEnumCase(_ typed: inout Typed, against other: Typed) throws {
        guard case .enumCase(let name) = typed.kind else { return }
        switch other.kind {
        case .attribute(let type) where type.isNumeric:
            throw error("the raw value of .\(name) is not in the store's model; write the number it stands for", at: typed.operand.position)
        case .attribute(.string), .unknown, .constant, .composite:
            if case .attribute = other.kind, let (base, keys) = other.operand.keyPathComponents, case .evaluatedObject = base.kind {
                enumCases.append(SwiftPredicateReader.EnumCase(keyPath: keys.joined(separator: "."), name: name))
            }
            typed.operand = PredicateOperand(.constant(.string(name)), at: typed.operand.position)
            typed.kind = .constant
        default:
            throw error(".\(name) is compared with something that is not an enum-backed attribute", at: typed.operand.position)
        }
    }

    // MARK: Calls and searches

    mutating func call(_ callee: SwiftNode, _ arguments: [SwiftArgument], at position: Int) throws -> Predicate {
        guard case .member(let receiver, let method) = callee.kind else {
            if case .optionalMember(let receiver, let method) = callee.kind {
                return try call(SwiftNode(.member(receiver, method), at: callee.position), arguments, at: position)
            }
            throw error("this call is not a predicate SwiftData can translate", at: callee.position)
        }
        let searches: [String: (ComparisonOperator, ComparisonOptions)] = [
            "localizedStandardContains": (.contains, [.caseInsensitive, .diacriticInsensitive]),
            "starts": (.beginsWith, []), "hasPrefix": (.beginsWith, []), "hasSuffix": (.endsWith, []),
        ]
        let at = callee.position
        if let (op, options) = searches[method] {
            let label = method == "starts" ? "with" : nil
            guard arguments.count == 1, arguments[0].label == label else {
                throw error("\(method)(\(label.map { $0 + ":" } ?? "_:")) takes one argument", at: at)
            }
            return try search(try operand(receiver), op, options, try operand(arguments[0].value), at: at)
        }
        switch method {
        case "contains" where arguments.count == 1 && (arguments[0].label == "where" || isClosure(arguments[0].value)):
            return try any(receiver, arguments[0].value, negated: false, at: at)
        case "allSatisfy" where arguments.count == 1 && isClosure(arguments[0].value):
            return try any(receiver, arguments[0].value, negated: true, at: at)
        case "contains" where arguments.count == 1 && arguments[0].label == nil:
            let collection = try operand(receiver)
            let element = try operand(arguments[0].value)
            switch collection.kind {
            case .toMany:
                throw error("contains(_:) on a relationship compares objects; test a property with contains(where:) (NSPredicate: ANY)", at: at)
            case .constant where isArray(collection.operand):
                return comparisonOf(element.operand, .in, collection.operand, at: at)
            default:
                if case .aggregate = collection.operand.kind { return comparisonOf(element.operand, .in, collection.operand, at: at) }
                return try search(collection, .contains, [], element, at: at)
            }
        case "localizedCaseInsensitiveContains":
            guard arguments.count == 1 else { throw error("\(method)(_:) takes one argument", at: at) }
            return try search(try operand(receiver), .contains, .caseInsensitive, try operand(arguments[0].value), at: at)
        case "filter":
            throw error("filter { } is supported only as filter { … }.count or filter { … }.isEmpty (NSPredicate: SUBQUERY(…).@count)", at: at)
        case "localizedStandardCompare", "compare", "localizedCompare":
            throw error("\(method)(_:) has no SQL translation in SwiftData; compare with <, == or caseInsensitiveCompare", at: at)
        case "evaluate":
            throw error("evaluate(_:) of another predicate is not supported; write its condition here", at: at)
        default:
            throw error("\(method)(…) is not a predicate SwiftData can translate to SQL", at: at)
        }
    }

    /// `base.name` or `base?.name`: optional chaining reads the same key path.
    static func member(_ node: SwiftNode) -> (SwiftNode, String)? {
        switch node.kind {
        case .member(let base, let name), .optionalMember(let base, let name): return (base, name)
        default: return nil
        }
    }

    func isClosure(_ node: SwiftNode) -> Bool {
        if case .closure = node.kind { return true }
        return false
    }

    func isArray(_ operand: PredicateOperand) -> Bool {
        if case .constant(.array) = operand.kind { return true }
        return false
    }

    func search(_ receiver: Typed, _ op: ComparisonOperator, _ options: ComparisonOptions, _ argument: Typed, at position: Int) throws -> Predicate {
        if case .toMany = receiver.kind { throw toManyCompared(at: receiver.operand.position) }
        var options = options
        if receiver.folded || argument.folded {
            try checkFolded(receiver.folded ? receiver : argument, receiver.folded ? argument : receiver, at: position)
            options.insert(.caseInsensitive)
        }
        return comparisonOf(receiver.operand, op, argument.operand, options: options, at: position)
    }

    /// `c.contains { p }` is `SUBQUERY(c, $x, p).@count > 0`; `c.allSatisfy { p }` is
    /// `SUBQUERY(c, $x, NOT p).@count == 0`.
    mutating func any(_ receiver: SwiftNode, _ closure: SwiftNode, negated: Bool, at position: Int) throws -> Predicate {
        let count = try subqueryCount(receiver, closure, negated: negated, at: position)
        // `cars.contains { $0.year > 2000 }`, one comparison of the element's key path with a
        // constant, is NSPredicate's `ANY cars.year > 2000`.
        if !negated, case .keyPath(let subquery, _) = count.operand.kind,
           case .subquery(let collection, let variable, .comparison(var c)) = subquery.kind, c.modifier == .direct,
           case .constant = c.right.kind, let (base, keys) = c.left.keyPathComponents, base.kind == .variable(variable),
           !keys.contains(where: { $0.hasPrefix("@") }) {
            var path = collection
            for key in keys { path = PredicateOperand(.keyPath(path, key), at: c.left.position) }
            c.left = path
            c.modifier = .any
            return .comparison(c)
        }
        let zero = PredicateOperand(.constant(.integer(0)), at: position)
        return comparisonOf(count.operand, negated ? .equal : .greater, zero, at: position)
    }

    mutating func subqueryCount(_ receiver: SwiftNode, _ closure: SwiftNode, negated: Bool, at position: Int) throws -> Typed {
        let collection = try operand(receiver)
        switch collection.kind {
        case .toMany, .unknown: break
        default: throw error("this is not a to-many relationship; contains(where:) and allSatisfy need one", at: receiver.position)
        }
        guard case .closure(let parameters, let body) = closure.kind else { throw error("expected a closure", at: closure.position) }
        if parameters.count > 1 { throw error("the closure takes one parameter, the related object", at: closure.position) }
        var entity: String?
        if case .toMany(let destination) = collection.kind { entity = destination }
        var name = parameters.first?.name ?? "x"
        let taken = Set(scopes.flatMap(\.names)).union(variables.keys)
        if name == "_" || taken.contains(name) || parameters.isEmpty {
            subqueryCount += 1
            name = parameters.first.map { $0.name == "_" ? "x" : $0.name } ?? "x"
            var n = subqueryCount
            while taken.contains(name + String(n)) { n += 1 }
            name += String(n)
        }
        scopes.append(Scope(names: parameters.isEmpty ? ["$0"] : [parameters[0].name],
                            base: PredicateOperand(.variable(name), at: closure.position), entity: entity))
        defer { scopes.removeLast() }
        var inner = try predicate(body)
        if negated { inner = .not(inner) }
        let subquery = PredicateOperand(.subquery(collection: collection.operand, variable: name, predicate: inner), at: position)
        return Typed(operand: PredicateOperand(.keyPath(subquery, "@count"), at: position), kind: .attribute(.integer64))
    }

    mutating func isEmpty(_ base: SwiftNode, at position: Int) throws -> Predicate {
        if case .call(let callee, let arguments) = base.kind, case let (receiver, "filter")? = Self.member(callee),
           arguments.count == 1, isClosure(arguments[0].value) {
            let count = try subqueryCount(receiver, arguments[0].value, negated: false, at: position)
            return comparisonOf(count.operand, .equal, PredicateOperand(.constant(.integer(0)), at: position), at: position)
        }
        let typed = try operand(base)
        switch typed.kind {
        case .attribute(.string):
            return comparisonOf(typed.operand, .equal, PredicateOperand(.constant(.string("")), at: position), at: position)
        case .toMany, .unknown:
            let count = PredicateOperand(.keyPath(typed.operand, "@count"), at: position)
            return comparisonOf(count, .equal, PredicateOperand(.constant(.integer(0)), at: position), at: position)
        case .constant where isArray(typed.operand):
            guard case .constant(.array(let items)) = typed.operand.kind else { return .constant(false) }
            return .constant(items.isEmpty)
        default:
            throw error("isEmpty applies to a string or a to-many relationship", at: position)
        }
    }

    // MARK: Operands

    mutating func operand(_ node: SwiftNode) throws -> Typed {
        let at = node.position
        if let value = constant(node) {
            return Typed(operand: PredicateOperand(.constant(value), at: at), kind: .constant)
        }
        switch node.kind {
        case .identifier(let name):
            if let scope = scopes.last(where: { $0.names.contains(name) }) {
                return Typed(operand: scope.base, kind: .object(scope.entity))
            }
            if name.first?.isUppercase == true { return Typed(operand: PredicateOperand(.constant(.null), at: at), kind: .typeName([name])) }
            var missing = error("\(name) is not given a value", at: at)
            missing.missing = .variable(name)
            throw missing
        case .anonymous(let n):
            guard n == 0, let scope = scopes.last, scope.names == ["$0"] else {
                throw error(n == 0 ? "$0 is not a parameter of this closure, which names its parameter" : "$\(n): the closure has one parameter, $0", at: at)
            }
            return Typed(operand: scope.base, kind: .object(scope.entity))
        case .member(let base, let name), .optionalMember(let base, let name):
            return try member(base, name, at: at)
        case .forceUnwrap(let base):
            return try operand(base)
        case .implicitMember(let name):
            return Typed(operand: PredicateOperand(.constant(.string(name)), at: at), kind: .enumCase(name))
        case .array(let items):
            let operands = try items.map { try operand($0).operand }
            return Typed(operand: PredicateOperand(.aggregate(operands), at: at), kind: .constant)
        case .prefix("-", let inner):
            let typed = try operand(inner)
            return Typed(operand: PredicateOperand(.negate(typed.operand), at: at), kind: typed.kind)
        case .binary(let op, let a, let b) where ["+", "-", "*", "/"].contains(op):
            let left = try operand(a)
            let right = try operand(b)
            for side in [left, right] {
                if case .attribute(.string) = side.kind { throw error("+ on strings has no SQL translation", at: at) }
            }
            let arithmetic = ArithmeticOperator(rawValue: op) ?? .add
            let kind: Kind = left.kind == .constant ? right.kind : left.kind
            return Typed(operand: PredicateOperand(.arithmetic(arithmetic, left.operand, right.operand), at: at), kind: kind)
        case .binary("%", _, _):
            throw error("% has no SQL translation in SwiftData (NSPredicate: FUNCTION(a, 'modulus:by:', b))", at: at)
        case .binary("??", _, _):
            throw error("?? is supported where its value is compared, tested or searched: (x ?? c) == y", at: at)
        case .call(let callee, let arguments):
            return try callOperand(callee, arguments, at: at)
        case .keyPath:
            throw error("a key path is not a value in a predicate; write $0.name", at: at)
        case .closure:
            throw error("a closure is not a value here", at: at)
        case .ternary:
            throw error("?: is supported only where its result is a Bool", at: at)
        default:
            throw error("this expression is not a value a predicate can compare", at: at)
        }
    }

    mutating func member(_ base: SwiftNode, _ name: String, at position: Int) throws -> Typed {
        // `filter { … }.count`
        if name == "count", case .call(let callee, let arguments) = base.kind, case let (receiver, "filter")? = Self.member(callee),
           arguments.count == 1, isClosure(arguments[0].value) {
            return try subqueryCount(receiver, arguments[0].value, negated: false, at: position)
        }
        let typed = try operand(base)
        switch typed.kind {
        case .typeName(let path):
            if path == ["Date"] {
                switch name {
                case "now": return Typed(operand: PredicateOperand(.function("now", []), at: position), kind: .attribute(.date))
                case "distantPast": return dateConstant(-63_114_076_800, at: position)
                case "distantFuture": return dateConstant(63_113_904_000, at: position)
                default: throw error("Date.\(name) is not a date a predicate can use", at: position)
                }
            }
            // `Drink.Kind.hot`: a lower-case member of a type is an enum case.
            if name.first?.isLowercase == true {
                return Typed(operand: PredicateOperand(.constant(.string(name)), at: position), kind: .enumCase(name))
            }
            return Typed(operand: typed.operand, kind: .typeName(path + [name]))
        case .enumCase(let caseName) where name == "rawValue":
            return Typed(operand: PredicateOperand(.constant(.string(caseName)), at: typed.operand.position), kind: .enumCase(caseName))
        case .object(let entity):
            return keyPath(typed.operand, name, in: entity, at: position)
        case .composite(let attribute):
            let leaf = attribute.elements.first { $0.name == name }
            return Typed(operand: PredicateOperand(.keyPath(typed.operand, name), at: position),
                         kind: leaf.map { $0.type == .composite ? .composite($0) : .attribute($0.type) } ?? .unknown)
        case .toMany:
            if name == "count" { return Typed(operand: PredicateOperand(.keyPath(typed.operand, "@count"), at: position), kind: .attribute(.integer64)) }
            if name == "first" || name == "last" {
                throw error("\(name) of a to-many relationship has no SQL translation; use contains(where:)", at: position)
            }
            throw error("\(name) is read through a to-many relationship; use contains(where:) or allSatisfy (NSPredicate: ANY)", at: position)
        case .attribute(.string):
            if name == "count" { throw error("String.count has no SQL translation in SwiftData; compare the string itself", at: position) }
            throw error("String.\(name) has no SQL translation", at: position)
        case .unknown:
            if name == "count" { return Typed(operand: PredicateOperand(.keyPath(typed.operand, "@count"), at: position), kind: .attribute(.integer64)) }
            return Typed(operand: PredicateOperand(.keyPath(typed.operand, name), at: position), kind: .unknown)
        case .constant:
            if name == "count", case .constant(.array(let items)) = typed.operand.kind {
                return Typed(operand: PredicateOperand(.constant(.integer(Int64(items.count))), at: position), kind: .constant)
            }
            throw error(".\(name) of a constant is not supported; write the value", at: position)
        default:
            throw error(".\(name) is not a property a predicate can read here", at: position)
        }
    }

    func dateConstant(_ seconds: Double, at position: Int) -> Typed {
        Typed(operand: PredicateOperand(.constant(.date(seconds)), at: position), kind: .constant)
    }

    /// `base.name` where base is an object of `entity`: the model says what it holds.
    func keyPath(_ base: PredicateOperand, _ name: String, in entity: String?, at position: Int) -> Typed {
        let operand = PredicateOperand(.keyPath(base, name), at: position)
        guard let model, let entity, let (property, _) = model.allProperties(of: entity).first(where: { $0.property.name == name }) else {
            return Typed(operand: operand, kind: .unknown)
        }
        switch property {
        case .attribute(let a):
            if a.type == .composite {
                // An enum stored as a composite of one element (`ice.ice`) compares as that element.
                if a.elements.count == 1, a.elements[0].type != .composite {
                    return Typed(operand: PredicateOperand(.keyPath(operand, a.elements[0].name), at: position), kind: .attribute(a.elements[0].type))
                }
                return Typed(operand: operand, kind: .composite(a))
            }
            return Typed(operand: operand, kind: .attribute(a.type))
        case .relationship(let r):
            return Typed(operand: operand, kind: r.isToMany ? .toMany(r.destinationEntityName) : .object(r.destinationEntityName))
        case .fetched:
            return Typed(operand: operand, kind: .unknown)
        }
    }

    mutating func callOperand(_ callee: SwiftNode, _ arguments: [SwiftArgument], at position: Int) throws -> Typed {
        switch callee.kind {
        case .member(let receiver, let method), .optionalMember(let receiver, let method):
            if (method == "lowercased" || method == "uppercased"), arguments.isEmpty {
                var typed = try operand(receiver)
                if case .toMany = typed.kind { throw toManyCompared(at: receiver.position) }
                typed.folded = true
                return typed
            }
            if method == "localizedLowercase" || method == "lowercased" || method == "uppercased" {
                throw error("\(method) takes no arguments here", at: callee.position)
            }
            throw error("\(method)(…) is not a value SwiftData can translate to SQL", at: callee.position)
        case .identifier("Date"):
            if arguments.isEmpty { return Typed(operand: PredicateOperand(.function("now", []), at: position), kind: .attribute(.date)) }
            throw error("Date(…) needs a constant: Date(timeIntervalSinceReferenceDate: seconds)", at: position)
        case .identifier("abs"), .identifier("min"), .identifier("max"):
            throw error("this function has no SQL translation in SwiftData", at: callee.position)
        default:
            throw error("this call is not a value SwiftData can translate to SQL", at: callee.position)
        }
    }

    // MARK: Constants

    /// The constant a node stands for, when it is one: literals, negated numbers, arrays of
    /// constants, dates made from a number, and captured variables.
    func constant(_ node: SwiftNode) -> PredicateValue? {
        switch node.kind {
        case .integer(let n): return .integer(n)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .nilLiteral: return .null
        case .prefix("-", let inner):
            switch constant(inner) {
            case .integer(let n)?: return n == Int64.min ? nil : .integer(-n)
            case .double(let d)?: return .double(-d)
            default: return nil
            }
        case .array(let items):
            var values: [PredicateValue] = []
            for item in items {
                guard let value = constant(item) else { return nil }
                values.append(value)
            }
            return .array(values)
        case .identifier(let name) where !scopes.contains(where: { $0.names.contains(name) }):
            return variables[name]
        case .call(let callee, let arguments):
            guard case .identifier("Date") = callee.kind, arguments.count == 1, let seconds = constant(arguments[0].value)?.number else { return nil }
            switch arguments[0].label {
            case "timeIntervalSinceReferenceDate": return .date(seconds)
            case "timeIntervalSince1970": return .date(seconds - 978_307_200)
            default: return nil
            }
        default:
            return nil
        }
    }
}

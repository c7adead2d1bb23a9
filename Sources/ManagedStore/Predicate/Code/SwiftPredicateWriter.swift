import Foundation

/// Writes a `Predicate` as the Swift a SwiftData developer pastes: `#Predicate<Person> {
/// person in … }`. The model decides the spelling: an optional attribute is guarded
/// (`person.age != nil && person.age! > 30`), a to-many relationship is searched with
/// `contains { }` / `allSatisfy { }` and counted with `count`. `SwiftPredicateReader` reads
/// the result back as the same predicate; what has no `#Predicate` form (`LIKE`, `MATCHES`,
/// aggregates, …) is a `PredicateCodeError`.
public struct SwiftPredicateWriter {
    let model: ManagedObjectModel?

    /// Closure parameters in scope: a subquery's variable (or an `ANY`'s element) by name.
    struct Scope {
        var variable: String?
        var name: String
        var entity: String?
    }
    var scopes: [Scope] = []

    public init(model: ManagedObjectModel?) {
        self.model = model
    }

    /// `#Predicate<Entity> { entity in … }`.
    public static func predicate(_ predicate: Predicate, entity: String, model: ManagedObjectModel?) throws -> String {
        var writer = SwiftPredicateWriter(model: model)
        return try writer.macro(predicate, entity: entity)
    }

    public mutating func macro(_ predicate: Predicate, entity: String) throws -> String {
        let type = SwiftNames.typeName(entity)
        let parameter = SwiftNames.parameterName(for: entity)
        scopes = [Scope(variable: nil, name: parameter, entity: entity)]
        defer { scopes = [] }
        return "#Predicate<\(type)> { \(parameter) in\n    \(Self.withoutOuterParentheses(try write(predicate)))\n}"
    }

    /// Walks the Swift the writer made, character by character, skipping string literals:
    /// `visit` gets each character's offset, the character, and the bracket depth after it
    /// (parentheses, braces and square brackets count). It stops when `visit` says false.
    static func walkOutsideStrings(_ text: String, _ visit: (_ offset: Int, _ c: Character, _ depth: Int) -> Bool) {
        var depth = 0
        var inString = false
        var escaped = false
        for (offset, c) in text.enumerated() {
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                continue
            }
            switch c {
            case "\"": inString = true
            case "(", "{", "[": depth += 1
            case ")", "}", "]": depth -= 1
            default: break
            }
            guard visit(offset, c, depth) else { return }
        }
    }

    /// The terms `&&` joins in `text` outside any brackets, braces or string.
    static func topLevelTerms(_ text: String) -> [String] {
        var terms: [String] = []
        var start = text.startIndex
        let characters = Array(text)
        walkOutsideStrings(text) { offset, c, depth in
            if c == "&", depth == 0, offset >= 2, characters[offset - 1] == "&", characters[offset - 2] == " " {
                let end = text.index(text.startIndex, offsetBy: offset - 2)
                terms.append(String(text[start..<end]))
                start = text.index(after: text.index(text.startIndex, offsetBy: offset))
            }
            return true
        }
        terms.append(String(text[start...]))
        return terms.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Whether `||` joins terms of `text` outside any brackets, braces or string.
    static func hasTopLevelOr(_ text: String) -> Bool {
        var previous: Character = " "
        var found = false
        walkOutsideStrings(text) { _, c, depth in
            found = c == "|" && previous == "|" && depth == 0
            previous = c
            return !found
        }
        return found
    }

    /// `(a && b)` → `a && b` when the parentheses hold the whole text: the closure's body
    /// needs none.
    static func withoutOuterParentheses(_ text: String) -> String {
        guard text.hasPrefix("("), text.hasSuffix(")") else { return text }
        let last = text.count - 1
        var closesEarly = false
        walkOutsideStrings(text) { offset, _, depth in
            closesEarly = depth == 0 && offset != last
            return !closesEarly
        }
        return closesEarly ? text : String(text.dropFirst().dropLast())
    }

    /// A value as it is typed here: its Swift text as an optional chain (`person.owner?.age`)
    /// and unwrapped (`person.owner!.age`), whether it can be nil, and what it is.
    struct Value {
        enum Kind: Equatable { case object(String?), toMany(String?), attribute(AttributeType?), constant, date }
        var text: String
        var forced: String
        var optional: Bool
        var kind: Kind
        /// Nil tests that must hold before the text can be evaluated: arithmetic unwraps its
        /// optional operands (`person.age! + 1`).
        var guards: [String] = []
        /// The key path's nil test, when the value can be nil.
        var isSet: String { optional ? "\(text) != nil" : "" }
    }

    mutating func write(_ predicate: Predicate) throws -> String {
        switch predicate {
        case .constant(let b): return b ? "true" : "false"
        case .not(let p): return "!(" + (try write(p)) + ")"
        case .and(let items):
            // `(x != nil && x! > 3) && y` is `x != nil && x! > 3 && y`: && is associative, and
            // a nil test already made is not made again.
            var terms: [String] = []
            for item in items {
                let text = try grouped(item)
                let inner = Self.withoutOuterParentheses(text)
                let parts = inner != text && !Self.hasTopLevelOr(inner) ? Self.topLevelTerms(inner) : [text]
                for part in parts where !(part.hasSuffix(" != nil") && terms.contains(part)) { terms.append(part) }
            }
            return terms.joined(separator: " && ")
        case .or(let items): return try items.map { try grouped($0) }.joined(separator: " || ")
        case .comparison(let c): return try comparison(c)
        }
    }

    mutating func grouped(_ p: Predicate) throws -> String {
        let text = try write(p)
        switch p {
        case .and(let items) where items.count > 1: return "(" + text + ")"
        case .or(let items) where items.count > 1: return "(" + text + ")"
        default: return text
        }
    }

    // MARK: Comparisons

    mutating func comparison(_ c: Comparison) throws -> String {
        switch c.modifier {
        case .any, .notAny, .all: return try quantified(c)
        case .direct: break
        }
        switch c.op {
        case .like: throw PredicateCodeError("LIKE", "SwiftData translates no wildcard match; use contains, starts(with:) or hasSuffix")
        case .matches: throw PredicateCodeError("MATCHES", "SwiftData translates no regular expression")
        case .utiConformsTo, .utiEquals: throw PredicateCodeError(c.op.rawValue, "it is not a SwiftData operator")
        default: break
        }
        let left = try value(c.left)
        let right = try value(c.right)
        if [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(c.op) {
            try Self.checkTypes([(left, c.right), (right, c.left)])
        }
        switch c.op {
        case .equal, .notEqual:
            let op = c.op == .equal ? "==" : "!="
            // Folding has nothing to fold against nil: `name ==[c] nil` is `name == nil`.
            let againstNil = [c.left, c.right].contains { if case .constant(.null) = $0.kind { return true } else { return false } }
            if c.options.folding.isEmpty || againstNil {
                if case .toMany = left.kind { throw PredicateCodeError("a to-many relationship compared with ==", "compare one of its properties with contains(where:)") }
                let tests = left.guards + right.guards
                let condition = "\(left.text) \(op) \(right.text)"
                return tests.isEmpty ? condition : "(" + (tests + [condition]).joined(separator: " && ") + ")"
            }
            guard c.options.folding == .caseInsensitive else {
                throw PredicateCodeError("==[\(c.options.letters)]", "only case folding ([c]) has a Swift spelling, caseInsensitiveCompare")
            }
            let compare = "\(left.forced).caseInsensitiveCompare(\(right.forced)) \(op) .orderedSame"
            return guarded([left, right], compare)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard c.options.folding.isEmpty else { throw PredicateCodeError("\(c.op.rawValue)[\(c.options.letters)]", "Swift orders strings without folding") }
            if case .toMany = left.kind { throw PredicateCodeError("a to-many relationship ordered with \(c.op.rawValue)", "order its count") }
            return guarded([left, right], "\(left.forced) \(c.op.rawValue) \(right.forced)")
        case .contains, .beginsWith, .endsWith:
            return try search(c, left, right)
        case .in:
            return try membership(c, left, right)
        case .between:
            guard case .aggregate(let bounds) = c.right.kind, bounds.count == 2 else {
                if case .constant(.array(let items)) = c.right.kind, items.count == 2 {
                    let low = try value(PredicateOperand(.constant(items[0]), at: c.right.position))
                    let high = try value(PredicateOperand(.constant(items[1]), at: c.right.position))
                    return guarded([left], "\(left.forced) >= \(low.forced) && \(left.forced) <= \(high.forced)")
                }
                throw PredicateCodeError("BETWEEN", "it needs two bounds, {low, high}")
            }
            let low = try value(bounds[0])
            let high = try value(bounds[1])
            return guarded([left, low, high], "\(left.forced) >= \(low.forced) && \(left.forced) <= \(high.forced)")
        default:
            throw PredicateCodeError(c.op.rawValue, "it is not a SwiftData operator")
        }
    }

    /// An attribute compared with a constant Swift would not compare it with
    /// (`SwiftComparability`) has no Swift form.
    static func checkTypes(_ pairs: [(Value, PredicateOperand)]) throws {
        for (attribute, other) in pairs {
            guard case .attribute(let type?) = attribute.kind, case .constant(let value) = other.kind,
                  let (what, with) = SwiftComparability.mismatch(type, value) else { continue }
            throw PredicateCodeError("\(what) compared with \(with)", "Swift compares values of one type")
        }
    }

    /// `condition` where every optional among `values` is set first, as Swift needs to
    /// unwrap it: `(person.age != nil && person.age! > 30)`.
    func guarded(_ values: [Value], _ condition: String) -> String {
        let tests = values.flatMap { $0.guards + ($0.optional ? [$0.isSet] : []) }
        guard !tests.isEmpty else { return condition }
        return "(" + (tests + [condition]).joined(separator: " && ") + ")"
    }

    mutating func search(_ c: Comparison, _ left: Value, _ right: Value) throws -> String {
        if case .toMany = left.kind { throw PredicateCodeError("\(c.op.rawValue) on a to-many relationship", "search one of its properties with contains(where:)") }
        let folding = c.options.folding
        let method: String
        switch (c.op, folding) {
        case (.contains, []): method = "contains"
        case (.contains, [.caseInsensitive, .diacriticInsensitive]): method = "localizedStandardContains"
        case (.beginsWith, []): method = "starts(with:"
        case (.endsWith, []): method = "hasSuffix"
        case (_, .caseInsensitive):
            // `x CONTAINS[c] "d"` is `x.lowercased().contains("d")` against a lower-case constant.
            guard case .constant(.string(let s)) = c.right.kind else {
                throw PredicateCodeError("\(c.op.rawValue)[c]", "case folding has a Swift spelling only against a string constant, lowercased()")
            }
            let name = c.op == .contains ? "contains" : c.op == .beginsWith ? "starts(with:" : "hasSuffix"
            let argument = SwiftNames.stringLiteral(s.lowercased())
            let call = name.hasSuffix(":") ? "\(name) \(argument))" : "\(name)(\(argument))"
            return guarded([left], "\(left.forced).lowercased().\(call)")
        default:
            throw PredicateCodeError("\(c.op.rawValue)[\(c.options.letters)]", "only [c] and, for CONTAINS, [cd] (localizedStandardContains) have Swift spellings")
        }
        let call = method.hasSuffix(":") ? "\(method) \(right.forced))" : "\(method)(\(right.forced))"
        return guarded([left, right], "\(left.forced).\(call)")
    }

    mutating func membership(_ c: Comparison, _ left: Value, _ right: Value) throws -> String {
        guard c.options.folding.isEmpty else { throw PredicateCodeError("IN[\(c.options.letters)]", "Swift's contains does not fold") }
        switch c.right.kind {
        case .constant(.array), .aggregate:
            return guarded([left], "\(right.text).contains(\(left.forced))")
        case .constant(.string):
            // `"d" IN "abcd"` is a substring test.
            return guarded([left], "\(right.text).contains(\(left.forced))")
        default:
            if case .toMany = right.kind { throw PredicateCodeError("IN with a to-many relationship", "test its objects with contains(where:)") }
            throw PredicateCodeError("IN", "Swift's contains needs an array literal or a string on the right")
        }
    }

    /// `ANY cars.year > 2000` → `person.cars.contains { car in car.year > 2000 }`; ALL →
    /// `allSatisfy`; NONE → `!contains`.
    mutating func quantified(_ c: Comparison) throws -> String {
        guard let (base, keys) = c.left.keyPathComponents else {
            throw PredicateCodeError("\(c.modifier == .all ? "ALL" : "ANY") over a value that is not a key path", "it needs a to-many relationship")
        }
        // Walk to the to-many step.
        var current = try value(base)
        var step = 0
        while step < keys.count {
            if case .toMany = current.kind { break }
            current = try member(current, keys[step])
            step += 1
        }
        guard case .toMany(let destination) = current.kind, step < keys.count else {
            // Over to-one steps alone, ANY and ALL compare the one value.
            var direct = c
            direct.modifier = .direct
            let p = try comparison(direct)
            return c.modifier == .notAny ? "!(" + p + ")" : p
        }
        let name = freshName(for: destination)
        var inner = PredicateOperand(.variable(name), at: c.left.position)
        for key in keys[step...] { inner = PredicateOperand(.keyPath(inner, key), at: c.left.position) }
        var element = c
        element.modifier = .direct
        element.left = inner
        let body = try closureBody(.comparison(element), variable: name, entity: destination)
        switch c.modifier {
        case .all: return toManyCall(current, "allSatisfy", body, empty: true)
        case .notAny: return "!(" + toManyCall(current, "contains", body, empty: false) + ")"
        default: return toManyCall(current, "contains", body, empty: false)
        }
    }

    /// `cars.contains { car in … }`, or `cars?.contains { … } == true` for an optional
    /// relationship (`!= false` for allSatisfy, which is true of none).
    func toManyCall(_ collection: Value, _ method: String, _ closure: String, empty: Bool) -> String {
        guard collection.optional else { return "\(collection.text).\(method) \(closure)" }
        return "\(collection.text)?.\(method) \(closure) \(empty ? "!= false" : "== true")"
    }

    mutating func closureBody(_ predicate: Predicate, variable: String, entity: String?) throws -> String {
        scopes.append(Scope(variable: variable, name: variable, entity: entity))
        defer { scopes.removeLast() }
        return "{ \(variable) in " + (try write(predicate)) + " }"
    }

    mutating func freshName(for entity: String?) -> String {
        let base = entity.map(SwiftNames.parameterName(for:)) ?? "element"
        var name = base
        var n = 1
        while scopes.contains(where: { $0.name == name }) {
            n += 1
            name = base + String(n)
        }
        return name
    }

    // MARK: Values

    mutating func value(_ e: PredicateOperand) throws -> Value {
        switch e.kind {
        case .constant(let v):
            return Value(text: try SwiftNames.literal(v), forced: try SwiftNames.literal(v), optional: false,
                         kind: { if case .date = v { return .date } else { return .constant } }())
        case .evaluatedObject:
            // SELF is the object tested, inside a SUBQUERY too.
            guard let scope = scopes.first else { throw PredicateCodeError("SELF", "no object is in scope") }
            return Value(text: scope.name, forced: scope.name, optional: false, kind: .object(scope.entity))
        case .variable(let name):
            guard let scope = scopes.last(where: { $0.variable == name }) else {
                throw PredicateCodeError("$\(name)", "a substitution variable must be given a value first")
            }
            return Value(text: scope.name, forced: scope.name, optional: false, kind: .object(scope.entity))
        case .keyPath(let base, let key):
            if case .subquery(let collection, let variable, let predicate) = base.kind, key == "@count" {
                return try filterCount(collection, variable, predicate)
            }
            let b = try value(base)
            if key.hasPrefix("@") {
                guard key == "@count" else { throw PredicateCodeError(key, "SwiftData translates no collection aggregate but count") }
                guard case .toMany = b.kind else { throw PredicateCodeError("@count of a value that is not a to-many relationship", "count a relationship") }
                if b.optional { return Value(text: "(\(b.text)?.count ?? 0)", forced: "(\(b.text)?.count ?? 0)", optional: false, kind: .attribute(.integer64)) }
                return Value(text: b.text + ".count", forced: b.text + ".count", optional: false, kind: .attribute(.integer64))
            }
            return try member(b, key)
        case .aggregate(let items):
            let values = try items.map { try value($0) }
            let text = "[" + values.map(\.forced).joined(separator: ", ") + "]"
            return Value(text: text, forced: text, optional: false, kind: .constant)
        case .arithmetic(let op, let a, let b):
            guard op != .power else { throw PredicateCodeError("**", "SwiftData translates no power") }
            let l = try value(a), r = try value(b)
            if l.kind == .attribute(.string) || r.kind == .attribute(.string) {
                throw PredicateCodeError("\(op.rawValue) on a String attribute", "SwiftData translates no string arithmetic")
            }
            let text = "(\(l.forced) \(op.rawValue) \(r.forced))"
            let guards = [l, r].flatMap { $0.guards + ($0.optional ? [$0.isSet] : []) }
            return Value(text: text, forced: text, optional: false, kind: l.kind == .constant ? r.kind : l.kind, guards: guards)
        case .negate(let a):
            let v = try value(a)
            return Value(text: "-" + v.forced, forced: "-" + v.forced, optional: false, kind: v.kind,
                         guards: v.guards + (v.optional ? [v.isSet] : []))
        case .function("now", let args) where args.isEmpty:
            return Value(text: "Date.now", forced: "Date.now", optional: false, kind: .date)
        case .function(let name, _):
            throw PredicateCodeError("\(name)()", "SwiftData translates no such function")
        case .selectorCall(_, let selector, _):
            throw PredicateCodeError("FUNCTION(…, '\(selector)')", "SwiftData calls no Objective-C method")
        case .subquery:
            throw PredicateCodeError("SUBQUERY used other than by its @count", "only SUBQUERY(…).@count has a Swift form, filter { }.count")
        case .cast(let inner, let type):
            if type == "NSDate", case .constant(let v) = inner.kind, let seconds = v.number {
                let text = "Date(timeIntervalSinceReferenceDate: \(SwiftNames.number(seconds)))"
                return Value(text: text, forced: text, optional: false, kind: .date)
            }
            throw PredicateCodeError("CAST(…, \"\(type)\")", "SwiftData translates no cast")
        case .index:
            throw PredicateCodeError("an index ([FIRST], [LAST], [n])", "SwiftData translates no subscript")
        }
    }

    /// `SUBQUERY(cars, $c, p).@count` → `person.cars.filter { c in p }.count`.
    mutating func filterCount(_ collection: PredicateOperand, _ variable: String, _ predicate: Predicate) throws -> Value {
        let c = try value(collection)
        guard case .toMany(let destination) = c.kind else { throw PredicateCodeError("SUBQUERY over a value that is not a to-many relationship", "it needs one") }
        guard SwiftNames.isIdentifier(variable), !scopes.contains(where: { $0.name == variable }) else {
            throw PredicateCodeError("SUBQUERY variable $\(variable)", "its name is taken here")
        }
        let body = try closureBody(predicate, variable: variable, entity: destination)
        let text = c.optional ? "(\(c.text)?.filter \(body).count ?? 0)" : "\(c.text).filter \(body).count"
        return Value(text: text, forced: text, optional: false, kind: .attribute(.integer64))
    }

    /// `base.key`, typed by the model.
    func member(_ base: Value, _ key: String) throws -> Value {
        guard SwiftNames.isIdentifier(key) else { throw PredicateCodeError("the key '\(key)'", "it is not a Swift property name") }
        let name = SwiftNames.escaped(key)
        let text = base.text + (base.optional ? "?." : ".") + name
        switch base.kind {
        case .object(let entity):
            var optional = true
            var kind = Value.Kind.attribute(nil)
            if let model, let entity, let (property, _) = model.allProperties(of: entity).first(where: { $0.property.name == key }) {
                switch property {
                case .attribute(let a):
                    optional = a.isOptional
                    kind = .attribute(a.type)
                case .relationship(let r):
                    optional = r.isOptional
                    kind = r.isToMany ? .toMany(r.destinationEntityName) : .object(r.destinationEntityName)
                case .fetched:
                    throw PredicateCodeError("the fetched property \(key)", "SwiftData has none")
                }
            } else if model != nil, entity != nil {
                throw PredicateCodeError("the key '\(key)'", "the entity has no such property")
            } else {
                kind = .object(nil)
            }
            let forced = base.forced + "." + name + (optional ? "!" : "")
            return Value(text: text, forced: forced, optional: base.optional || optional, kind: kind)
        case .toMany:
            throw PredicateCodeError("the key path through a to-many relationship (\(key))", "use ANY, or SUBQUERY")
        default:
            if case .attribute(.composite?) = base.kind {
                return Value(text: text, forced: base.forced + "." + name, optional: base.optional, kind: .attribute(nil))
            }
            throw PredicateCodeError("the key path .\(key) on a value", "it reads no property of an object")
        }
    }
}

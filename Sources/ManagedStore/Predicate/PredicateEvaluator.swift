import Foundation

/// What the in-memory evaluator asks of an object: the value of a key, as key-value coding
/// would answer it. Managed objects with unsaved changes answer through this, so pending
/// changes are matched with NSPredicate's in-memory rules, as Core Data matches them.
public protocol PredicateEvaluable {
    func value(forKey key: String) throws -> EvaluatedValue
    /// Identity for `==` between objects and for membership.
    var evaluationIdentity: AnyHashable { get }
    /// Whether an object ID written as text (`Person/p3`) names this object, so that
    /// `owner == "Person/p3"` matches in memory as it does in SQL.
    func isReferenced(by text: String) -> Bool
}

extension PredicateEvaluable {
    public func isReferenced(by text: String) -> Bool { false }
}

/// A value met while evaluating: a constant, an object, or a collection (a to-many
/// relationship, or a key path mapped over one).
public enum EvaluatedValue {
    case value(PredicateValue)
    case object(any PredicateEvaluable)
    case collection([EvaluatedValue])

    public static var null: EvaluatedValue { .value(.null) }

    var isNull: Bool {
        if case .value(.null) = self { return true }
        return false
    }
}

/// Evaluates a predicate against one object with Foundation's in-memory rules
/// (predicate-grammar.md §4): `nil != x` is true, numbers never equal strings, ordering a
/// string against a number is an error, an empty search string matches nothing, and a
/// to-many key without a modifier compares the whole collection.
public struct PredicateEvaluator {
    let text: String
    let variables: [String: EvaluatedValue]

    public init(text: String = "", variables: [String: PredicateValue] = [:]) {
        self.text = text
        self.variables = variables.mapValues { .value($0) }
    }

    private init(text: String, scoped: [String: EvaluatedValue]) {
        self.text = text
        variables = scoped
    }

    func error(_ message: String, at position: Int) -> PredicateFormatError {
        PredicateFormatError(.evaluation, message, predicate: text, position: position)
    }

    public func evaluate(_ predicate: Predicate, with object: any PredicateEvaluable) throws -> Bool {
        switch predicate {
        case .constant(let b): return b
        case .not(let p): return try !evaluate(p, with: object)
        case .and(let ps):
            for p in ps where try !evaluate(p, with: object) { return false }
            return true
        case .or(let ps):
            for p in ps where try evaluate(p, with: object) { return true }
            return false
        case .comparison(let c):
            return try comparison(c, object)
        }
    }

    func comparison(_ c: Comparison, _ object: any PredicateEvaluable) throws -> Bool {
        let left = try value(c.left, object)
        let right = try value(c.right, object)
        switch c.modifier {
        case .direct:
            return try compare(left, c.op, right, c.options, at: c.position)
        case .any, .all, .notAny:
            let elements: [EvaluatedValue]
            switch left {
            case .collection(let items): elements = items
            case .value(.null): elements = []
            case .value(.array(let items)): elements = items.map { .value($0) }
            default: throw error("the left hand side for an ALL, ANY or NONE operator must be a collection", at: c.position)
            }
            var any = false, all = true
            for element in elements {
                let result = try compare(element, c.op, right, c.options, at: c.position)
                any = any || result
                all = all && result
            }
            return c.modifier == .any ? any : c.modifier == .all ? all : !any
        }
    }

    // MARK: Comparing

    func compare(_ l: EvaluatedValue, _ op: ComparisonOperator, _ r: EvaluatedValue, _ options: ComparisonOptions, at position: Int) throws -> Bool {
        switch op {
        case .equal: return equal(l, r, options)
        case .notEqual: return !equal(l, r, options)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if l.isNull || r.isNull {
                return l.isNull && r.isNull && (op == .lessOrEqual || op == .greaterOrEqual)
            }
            let order = try ordering(l, r, options, at: position)
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .between:
            let bounds = elements(r)
            guard let bounds, bounds.count == 2 else { throw error("BETWEEN needs two bounds, as in {low, high}", at: position) }
            if l.isNull { return false }
            return try ordering(bounds[0], l, options, at: position) <= 0 && ordering(l, bounds[1], options, at: position) <= 0
        case .in:
            return try membership(l, in: r, options, at: position)
        case .contains:
            return try membership(r, in: l, options, at: position)
        case .beginsWith, .endsWith, .like, .matches:
            guard case .value(let lv) = l, case .value(let rv) = r else { throw error("\(op.rawValue) needs strings", at: position) }
            if lv.isNull || rv.isNull { return false }
            guard case .string(let s) = lv, case .string(let p) = rv else { throw error("\(op.rawValue) needs strings", at: position) }
            switch op {
            case .beginsWith: return StringMatching.search(s, p, .beginsWith, options)
            case .endsWith: return StringMatching.search(s, p, .endsWith, options)
            case .like: return StringMatching.like(s, p, options)
            default:
                guard let result = StringMatching.matches(s, p, options) else { throw error("invalid regular expression: \(p)", at: position) }
                return result
            }
        case .utiConformsTo, .utiEquals:
            throw error("\(op.rawValue) is a Spotlight operator", at: position)
        }
    }

    func elements(_ v: EvaluatedValue) -> [EvaluatedValue]? {
        switch v {
        case .collection(let items): return items
        case .value(.array(let items)): return items.map { .value($0) }
        default: return nil
        }
    }

    /// `isEqual:`: numbers by value (booleans are numbers), strings literally or folded by
    /// the options, objects by identity; a number never equals a string.
    func equal(_ l: EvaluatedValue, _ r: EvaluatedValue, _ options: ComparisonOptions) -> Bool {
        switch (l, r) {
        case (.value(let a), .value(let b)):
            switch (a, b) {
            case (.null, .null): return true
            case (.null, _), (_, .null): return false
            case (.string(let x), .string(let y)): return StringMatching.equal(x, y, options)
            case (.date(let x), .date(let y)): return x == y
            case (.array(let x), .array(let y)):
                return x.count == y.count && zip(x, y).allSatisfy { equal(.value($0), .value($1), options) }
            case (.string, _), (_, .string), (.array, _), (_, .array), (.date, _), (_, .date): return false
            default: return a.number == b.number
            }
        case (.object(let a), .object(let b)): return a.evaluationIdentity == b.evaluationIdentity
        case (.object(let o), .value(.string(let s))), (.value(.string(let s)), .object(let o)): return o.isReferenced(by: s)
        case (.collection(let x), .collection(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, options) }
        default: return false
        }
    }

    /// `compare:`; values of different kinds cannot be ordered.
    func ordering(_ l: EvaluatedValue, _ r: EvaluatedValue, _ options: ComparisonOptions, at position: Int) throws -> Int {
        guard case .value(let a) = l, case .value(let b) = r else { throw error("a collection or object cannot be ordered", at: position) }
        switch (a, b) {
        case (.string(let x), .string(let y)): return StringMatching.compare(x, y, options)
        case (.date(let x), .date(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.string, _), (_, .string), (.array, _), (_, .array), (.date, _), (_, .date), (.null, _), (_, .null):
            throw error("cannot compare \(describe(a)) with \(describe(b))", at: position)
        default:
            let x = a.number!, y = b.number!
            return x < y ? -1 : x > y ? 1 : 0
        }
    }

    func describe(_ v: PredicateValue) -> String {
        switch v {
        case .null: return "nil"
        case .bool, .integer, .double: return "a number"
        case .string: return "a string"
        case .date: return "a date"
        case .array: return "a collection"
        }
    }

    /// IN and CONTAINS: membership in a collection, or a substring test between strings.
    func membership(_ needle: EvaluatedValue, in haystack: EvaluatedValue, _ options: ComparisonOptions, at position: Int) throws -> Bool {
        if needle.isNull || haystack.isNull { return false }
        if case .value(.string(let h)) = haystack {
            guard case .value(.string(let n)) = needle else { throw error("IN/CONTAINS between a string and a non-string", at: position) }
            return StringMatching.search(h, n, .contains, options)
        }
        guard let items = elements(haystack) else { throw error("IN needs a collection on its right", at: position) }
        return items.contains { equal($0, needle, options) }
    }

    // MARK: Values

    func value(_ e: PredicateOperand, _ object: any PredicateEvaluable) throws -> EvaluatedValue {
        switch e.kind {
        case .constant(let v): return .value(v)
        case .evaluatedObject: return .object(object)
        case .variable(let name):
            guard let v = variables[name] else { throw error("variable $\(name) has no value", at: e.position) }
            return v
        case .keyPath(let base, let key):
            // `items.@sum.price`: the key after the operator reaches into each element.
            if case .keyPath(let collection, let op) = base.kind, Self.aggregates.contains(op.lowercased()) {
                let mapped = try valueForKey(key, of: try value(collection, object), at: e.position)
                return aggregate(op.lowercased(), elements(mapped) ?? [])
            }
            return try valueForKey(key, of: try value(base, object), at: e.position)
        case .aggregate(let items):
            return .collection(try items.map { try value($0, object) })
        case .arithmetic(let op, let a, let b):
            guard let x = try number(value(a, object)), let y = try number(value(b, object)) else { return .null }
            let result: Double
            switch op {
            case .add: result = x + y
            case .subtract: result = x - y
            case .multiply: result = x * y
            case .divide: result = x / y
            case .power: result = Foundation.pow(x, y)
            }
            return .value(.double(result))
        case .negate(let a):
            guard let x = try number(value(a, object)) else { return .null }
            return .value(.double(-x))
        case .function(let name, let args):
            return try function(name, try args.map { try value($0, object) }, at: e.position)
        case .selectorCall(_, let selector, _):
            throw error("FUNCTION(…, '\(selector)') is not supported", at: e.position)
        case .subquery(let collection, let variable, let predicate):
            guard let items = elements(try value(collection, object)) else { return .collection([]) }
            var kept: [EvaluatedValue] = []
            for item in items {
                var scoped = variables
                scoped[variable] = item
                let inner = PredicateEvaluator(text: text, scoped: scoped)
                if try inner.evaluate(predicate, with: object) { kept.append(item) }
            }
            return .collection(kept)
        case .cast(let a, let type):
            let v = try value(a, object)
            switch (type, v) {
            case ("NSDate", .value(let p)): return p.number.map { .value(.date($0)) } ?? .null
            case ("NSNumber", .value(.string(let s))): return Double(s).map { .value(.double($0)) } ?? .null
            case ("NSNumber", .value(let p)): return p.number.map { .value(.double($0)) } ?? .null
            case ("NSString", .value(let p)): return .value(.string(p.number.map { "\($0)" } ?? (p == .null ? "" : "\(p)")))
            default: throw error("CAST to \(type) is not supported", at: e.position)
            }
        case .index(let base, let kind):
            let items = elements(try value(base, object)) ?? []
            switch kind {
            case .size: return .value(.integer(Int64(items.count)))
            case .first: return items.first ?? .null
            case .last: return items.last ?? .null
            case .expression(let i):
                guard let n = try number(value(i, object)), n >= 0, Int(n) < items.count else { throw error("index out of range", at: e.position) }
                return items[Int(n)]
            }
        }
    }

    func number(_ v: EvaluatedValue) throws -> Double? {
        guard case .value(let p) = v else { return nil }
        return p.number
    }

    /// KVC: a key of an object, mapped over a collection, or a collection operator.
    func valueForKey(_ key: String, of base: EvaluatedValue, at position: Int) throws -> EvaluatedValue {
        switch base {
        case .object(let o):
            if key.hasPrefix("@") { throw error("\(key) needs a collection", at: position) }
            return try o.value(forKey: key)
        case .collection(let items):
            switch key.lowercased() {
            case "@count": return .value(.integer(Int64(items.count)))
            case "@sum", "@avg", "@min", "@max":
                return aggregate(key.lowercased(), items)
            default:
                return .collection(try items.map { try valueForKey(key, of: $0, at: position) })
            }
        case .value(.null):
            return .null
        case .value(.array(let items)):
            return try valueForKey(key, of: .collection(items.map { .value($0) }), at: position)
        case .value:
            throw error("\(key) is not a key of a value", at: position)
        }
    }

    static let aggregates: Set<String> = ["@sum", "@avg", "@min", "@max"]

    func aggregate(_ op: String, _ values: [EvaluatedValue]) -> EvaluatedValue {
        let numbers = values.compactMap { v -> Double? in
            if case .value(let p) = v { return p.number }
            return nil
        }
        switch op {
        case "@sum": return .value(.double(numbers.reduce(0, +)))
        case "@avg": return numbers.isEmpty ? .null : .value(.double(numbers.reduce(0, +) / Double(numbers.count)))
        case "@min": return numbers.min().map { .value(.double($0)) } ?? .null
        default: return numbers.max().map { .value(.double($0)) } ?? .null
        }
    }

    func function(_ name: String, _ args: [EvaluatedValue], at position: Int) throws -> EvaluatedValue {
        if name == "now" { return .value(.date(Date().timeIntervalSinceReferenceDate)) }
        let numbers = try args.map { try number($0) }
        guard numbers.count == 1, let x = numbers[0] else {
            if ["sum", "count", "min", "max", "average"].contains(name), let items = args.first.flatMap(elements) {
                let values = items.compactMap { try? number($0) }
                switch name {
                case "count": return .value(.integer(Int64(items.count)))
                case "sum": return .value(.double(values.reduce(0, +)))
                case "min": return values.min().map { .value(.double($0)) } ?? .null
                case "max": return values.max().map { .value(.double($0)) } ?? .null
                default: return values.isEmpty ? .null : .value(.double(values.reduce(0, +) / Double(values.count)))
                }
            }
            throw error("\(name)() needs one number", at: position)
        }
        switch name {
        case "abs": return .value(.double(Swift.abs(x)))
        case "sqrt": return .value(.double(x.squareRoot()))
        case "log": return .value(.double(Foundation.log10(x)))
        case "ln": return .value(.double(Foundation.log(x)))
        case "exp": return .value(.double(Foundation.exp(x)))
        case "floor": return .value(.double(x.rounded(.down)))
        case "ceiling": return .value(.double(x.rounded(.up)))
        case "trunc": return .value(.double(x.rounded(.towardZero)))
        default: throw error("function \(name)() is not supported", at: position)
        }
    }
}

extension PredicateEvaluator {
    /// The value of a sort key path (`name`, `owner.name`), for ordering objects in memory.
    public func sortValue(_ keyPath: String, of object: any PredicateEvaluable) throws -> EvaluatedValue {
        var value = EvaluatedValue.object(object)
        for key in keyPath.split(separator: ".") {
            value = try valueForKey(String(key), of: value, at: 0)
        }
        return value
    }

    /// Orders two sort values as SQLite's ORDER BY does, so that objects matched in memory
    /// fall where the store would have put them: nil first, then numbers (dates among
    /// them), then text by its bytes.
    public static func sortOrder(_ a: EvaluatedValue, _ b: EvaluatedValue) -> Int {
        func rank(_ v: EvaluatedValue) -> Int {
            switch v {
            case .value(.null): return 0
            case .value(.string): return 2
            case .value(.bool), .value(.integer), .value(.double), .value(.date): return 1
            default: return 3
            }
        }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.value(.string(let x)), .value(.string(let y))):
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x == y ? 0 : 1)
        case (.value(let x), .value(let y)):
            guard let p = x.number, let q = y.number else { return 0 }
            return p < q ? -1 : p > q ? 1 : 0
        default:
            return 0
        }
    }
}

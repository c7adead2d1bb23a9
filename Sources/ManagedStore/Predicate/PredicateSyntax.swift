/// A parsed NSPredicate format string. The tree is what both the SQL compiler and the
/// in-memory evaluator walk, so a store fetch and a match of unsaved objects read the same
/// predicate the same way.
public indirect enum Predicate: Sendable, Equatable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case not(Predicate)
    case and([Predicate])
    case or([Predicate])
    case comparison(Comparison)
}

/// `ANY` and `SOME` are `.any`. `NONE x` means `NOT (ANY x)`, as Foundation rewrites it;
/// `.notAny` (NONE) is kept apart so that a warning can say what the user wrote.
public enum ComparisonModifier: Sendable, Equatable {
    case direct, any, all, notAny
}

public enum ComparisonOperator: String, Sendable, Equatable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case like = "LIKE"
    case matches = "MATCHES"
    case utiConformsTo = "UTI-CONFORMS-TO"
    case utiEquals = "UTI-EQUALS"

    public var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .like, .matches, .contains: return true
        default: return false
        }
    }
}

/// The `[cdnl]` letters after an operator.
public struct ComparisonOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: the caller promises folded data, which switches `c` and `d` off.
    public static let normalized = ComparisonOptions(rawValue: 4)
    public static let localeSensitive = ComparisonOptions(rawValue: 8)

    /// The folding actually applied: `[n]` wins over `[c]` and `[d]`.
    public var folding: ComparisonOptions {
        contains(.normalized) ? [] : intersection([.caseInsensitive, .diacriticInsensitive])
    }

    public var letters: String {
        var s = ""
        if contains(.caseInsensitive) { s += "c" }
        if contains(.diacriticInsensitive) { s += "d" }
        if contains(.normalized) { s += "n" }
        if contains(.localeSensitive) { s += "l" }
        return s
    }
}

public struct Comparison: Sendable, Equatable {
    public var modifier: ComparisonModifier
    public var left: PredicateOperand
    public var op: ComparisonOperator
    public var options: ComparisonOptions
    public var right: PredicateOperand
    /// Where the operator starts in the predicate string, for error messages.
    public var position: Int
}

/// A constant in a predicate: a literal, a substituted argument, or a variable's value.
public enum PredicateValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    /// Seconds since 2001-01-01 00:00:00 UTC, as Core Data stores dates.
    case date(Double)
    case array([PredicateValue])

    public var isNull: Bool { self == .null }

    /// The number a numeric value stands for (booleans are numbers, as NSNumber makes them).
    public var number: Double? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .integer(let i): return Double(i)
        case .double(let d): return d
        case .date(let d): return d
        default: return nil
        }
    }
}

public enum ArithmeticOperator: String, Sendable, Equatable {
    case add = "+", subtract = "-", multiply = "*", divide = "/", power = "**"
}

/// `[FIRST]`, `[LAST]`, `[SIZE]` or `[expression]` after a collection.
public indirect enum IndexKind: Sendable, Equatable {
    case first, last, size
    case expression(PredicateOperand)
}

public struct PredicateOperand: Sendable, Equatable {
    public indirect enum Kind: Sendable, Equatable {
        case constant(PredicateValue)
        /// `SELF`, the object being tested.
        case evaluatedObject
        /// `$name`: a substitution variable, or a SUBQUERY's iteration variable.
        case variable(String)
        /// `base.key`; a bare key `k` is `keyPath(evaluatedObject, "k")`. Keys starting with `@`
        /// are collection operators (`@count`, `@sum`, …).
        case keyPath(PredicateOperand, String)
        /// `{a, b, …}`.
        case aggregate([PredicateOperand])
        case arithmetic(ArithmeticOperator, PredicateOperand, PredicateOperand)
        case negate(PredicateOperand)
        /// `abs(x)`, `sqrt(x)`, `now()`, …
        case function(String, [PredicateOperand])
        /// `FUNCTION(receiver, 'selector', args…)`: parsed, never compiled to SQL.
        case selectorCall(PredicateOperand, String, [PredicateOperand])
        case subquery(collection: PredicateOperand, variable: String, predicate: Predicate)
        /// `CAST(x, "NSDate")` and friends.
        case cast(PredicateOperand, String)
        case index(PredicateOperand, IndexKind)
    }

    public var kind: Kind
    /// Where the expression starts in the predicate string.
    public var position: Int

    public init(_ kind: Kind, at position: Int) {
        self.kind = kind
        self.position = position
    }

    /// The key path's components from SELF or a variable, when this is a plain key path.
    public var keyPathComponents: (base: PredicateOperand, keys: [String])? {
        var keys: [String] = []
        var node = self
        while case .keyPath(let base, let key) = node.kind {
            keys.insert(key, at: 0)
            node = base
        }
        guard !keys.isEmpty else { return nil }
        return (node, keys)
    }
}

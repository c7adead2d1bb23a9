import Foundation

/// One of an attribute's validation predicates (`NSValidationPredicates`) with its warning
/// (`NSValidationWarnings`): what `validateValue(_:forKey:)` checks before a save. The model
/// editor's minimum, maximum and pattern become such rules when Xcode compiles a model
/// (`SELF >= 0` with 1620, "number too small", in Notes' and Screen Time's caches); code can
/// add any predicate with its own message (CoreDataPlus' `length >= 3 AND length <= 50`).
public struct ValidationRule: Sendable, Equatable {
    /// The predicate, as far as a rule's value test goes: a comparison of the value (or its
    /// length) with a constant, a text operator, and AND/OR/NOT of those. Any other form is
    /// kept as `unread`, named, and not checked: a value is never refused by a guess.
    public indirect enum Test: Sendable, Equatable {
        case compare(Operand, Comparison, Constant)
        case all([Test])
        case any([Test])
        case not(Test)
        case unread(String)
    }

    /// The left side: the value itself (`SELF`) or its `length` (a string's characters).
    public enum Operand: String, Sendable, Equatable {
        case value = "SELF"
        case length
    }

    /// `NSPredicateOperatorType`'s raw values, as archives hold them.
    public enum Comparison: Int, Sendable, Equatable {
        case lessThan = 0, lessThanOrEqual = 1, greaterThan = 2, greaterThanOrEqual = 3, equal = 4, notEqual = 5
        case matches = 6, like = 7, beginsWith = 8, endsWith = 9, contains = 99

        var symbol: String {
            switch self {
            case .lessThan: return "<"
            case .lessThanOrEqual: return "<="
            case .greaterThan: return ">"
            case .greaterThanOrEqual: return ">="
            case .equal: return "=="
            case .notEqual: return "!="
            case .matches: return "MATCHES"
            case .like: return "LIKE"
            case .beginsWith: return "BEGINSWITH"
            case .endsWith: return "ENDSWITH"
            case .contains: return "CONTAINS"
            }
        }
    }

    public enum Constant: Sendable, Equatable, CustomStringConvertible {
        case number(Double)
        case text(String)
        /// A date, as seconds since 2001-01-01 (`NSDate`'s `NS.time`).
        case date(Double)

        public var description: String {
            switch self {
            case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
            case .text(let s): return "\"" + s + "\""
            case .date(let t): return ISO8601DateFormatter().string(from: Date(timeIntervalSinceReferenceDate: t))
            }
        }
    }

    /// What a failure says: one of Foundation's validation error codes (1610 number too
    /// large, 1620 too small, 1630 date too late, 1640 too soon, 1660 string too long, 1670
    /// too short, 1680 pattern), or the model's own message.
    public enum Warning: Sendable, Equatable {
        case code(Int)
        case message(String)
    }

    public var test: Test
    public var warning: Warning

    public init(_ test: Test, warning: Warning) {
        self.test = test
        self.warning = warning
    }

    /// The predicate as `NSPredicate` prints it (`SELF >= 0`, `length <= 50`).
    public var predicateText: String { Self.text(test) }

    static func text(_ test: Test) -> String {
        switch test {
        case .compare(let operand, let comparison, let constant): return "\(operand.rawValue) \(comparison.symbol) \(constant)"
        case .all(let tests): return tests.map { "(" + text($0) + ")" }.joined(separator: " AND ")
        case .any(let tests): return tests.map { "(" + text($0) + ")" }.joined(separator: " OR ")
        case .not(let test): return "NOT (" + text(test) + ")"
        case .unread(let form): return "(\(form), not read)"
        }
    }
}

// MARK: The model editor's fields

extension ValidationRule {
    /// The rules Xcode compiles from the model editor's minimum, maximum and pattern
    /// (`minValueString`, `maxValueString`, `regularExpressionString`): on a number the
    /// value's bounds, on a string its length's, on a date the date's.
    static func fromModelEditor(type: AttributeType, minimum: String?, maximum: String?, pattern: String?) -> [ValidationRule] {
        var rules: [ValidationRule] = []
        let isText = type == .string || type == .uri
        func bound(_ text: String?, _ comparison: Comparison, numberCode: Int, textCode: Int, dateCode: Int) {
            guard let text = text?.trimmingCharacters(in: .whitespaces), let number = Double(text) else { return }
            if isText {
                rules.append(ValidationRule(.compare(.length, comparison, .number(number)), warning: .code(textCode)))
            } else if type == .date {
                rules.append(ValidationRule(.compare(.value, comparison, .date(number)), warning: .code(dateCode)))
            } else if [.integer16, .integer32, .integer64, .decimal, .double, .float].contains(type) {
                rules.append(ValidationRule(.compare(.value, comparison, .number(number)), warning: .code(numberCode)))
            }
        }
        bound(minimum, .greaterThanOrEqual, numberCode: 1620, textCode: 1670, dateCode: 1640)
        bound(maximum, .lessThanOrEqual, numberCode: 1610, textCode: 1660, dateCode: 1630)
        if isText, let pattern, !pattern.isEmpty {
            rules.append(ValidationRule(.compare(.value, .matches, .text(pattern)), warning: .code(1680)))
        }
        return rules
    }

    /// Whether a model file can hold the rule: the model editor's minimum, maximum or
    /// pattern with Foundation's error code. A predicate set in code, or one with its own
    /// message, has no place in a model file.
    public var isModelEditorRule: Bool {
        guard case .code = warning, case .compare(_, let comparison, _) = test else { return false }
        return [.greaterThanOrEqual, .lessThanOrEqual, .matches].contains(comparison)
    }

    /// The model editor's fields these rules came from, when they are of that form: what
    /// the model writer puts back into `minValueString` and its neighbours.
    static func modelEditorFields(_ rules: [ValidationRule]) -> (minimum: String?, maximum: String?, pattern: String?) {
        var fields: (minimum: String?, maximum: String?, pattern: String?) = (nil, nil, nil)
        for rule in rules where rule.isModelEditorRule {
            guard case .compare(_, let comparison, let constant) = rule.test else { continue }
            let text: String
            switch constant {
            case .number(let n), .date(let n): text = Constant.number(n).description
            case .text(let s): text = s
            }
            switch comparison {
            case .greaterThanOrEqual: fields.minimum = text
            case .lessThanOrEqual: fields.maximum = text
            case .matches: fields.pattern = text
            default: break
            }
        }
        return fields
    }
}

// MARK: Checking a value

extension ValidationRule {
    /// What is wrong with `value` by this rule, as the end of a sentence that starts with the
    /// key ("is 200, more than the model's maximum 150"); nil when the value passes, is nil
    /// (optionality is checked apart, as Core Data does), or the rule's form is not read.
    public func problem(with value: AttributeValue) -> String? {
        if case .null = value { return nil }
        guard Self.holds(test, value) == false else { return nil }
        let shown: String
        switch value {
        case .string(let s), .uri(let s): shown = "\"" + (s.count > 40 ? String(s.prefix(40)) + "…" : s) + "\""
        case .integer(let i): shown = String(i)
        case .double(let d): shown = Constant.number(d).description
        case .date(let t): shown = Constant.date(t).description
        default: shown = "the value"
        }
        if case .message(let message) = warning { return "is \(shown): \(message)" }
        if case .compare(let operand, let comparison, let bound) = test {
            let length = operand == .length ? " characters" : ""
            let lengthText = operand == .length ? "\(Self.length(value) ?? 0) characters long" : shown
            switch comparison {
            case .greaterThanOrEqual, .greaterThan:
                return "is \(operand == .length ? lengthText : shown), less than the model's minimum \(bound)\(length)"
            case .lessThanOrEqual, .lessThan:
                return "is \(operand == .length ? lengthText : shown), more than the model's maximum \(bound)\(length)"
            case .matches:
                return "is \(shown), which does not match the model's pattern \(bound)"
            default: break
            }
        }
        return "is \(shown), which fails the model's rule \(predicateText)"
    }

    /// Whether the value passes the test; nil when the test cannot be decided (a form not
    /// read, a constant of another kind than the value).
    static func holds(_ test: Test, _ value: AttributeValue) -> Bool? {
        switch test {
        case .unread: return nil
        case .not(let inner): return holds(inner, value).map { !$0 }
        case .all(let tests):
            let results = tests.map { holds($0, value) }
            if results.contains(false) { return false }
            return results.contains(where: { $0 == nil }) ? nil : true
        case .any(let tests):
            let results = tests.map { holds($0, value) }
            if results.contains(true) { return true }
            return results.contains(where: { $0 == nil }) ? nil : false
        case .compare(let operand, let comparison, let constant):
            if operand == .length {
                guard let count = length(value), case .number(let n) = constant else { return nil }
                return order(Double(count), comparison, n)
            }
            switch (value, constant) {
            case (.integer(let i), .number(let n)): return order(Double(i), comparison, n)
            case (.double(let d), .number(let n)): return order(d, comparison, n)
            case (.bool(let b), .number(let n)): return order(b ? 1 : 0, comparison, n)
            case (.date(let t), .date(let n)), (.date(let t), .number(let n)): return order(t, comparison, n)
            case (.string(let s), .text(let t)), (.uri(let s), .text(let t)): return text(s, comparison, t)
            default: return nil
            }
        }
    }

    private static func length(_ value: AttributeValue) -> Int? {
        switch value {
        case .string(let s), .uri(let s): return (s as NSString).length
        case .data(let bytes): return bytes.count
        default: return nil
        }
    }

    private static func order(_ a: Double, _ comparison: Comparison, _ b: Double) -> Bool? {
        switch comparison {
        case .lessThan: return a < b
        case .lessThanOrEqual: return a <= b
        case .greaterThan: return a > b
        case .greaterThanOrEqual: return a >= b
        case .equal: return a == b
        case .notEqual: return a != b
        default: return nil
        }
    }

    private static func text(_ s: String, _ comparison: Comparison, _ t: String) -> Bool? {
        switch comparison {
        case .equal: return s == t
        case .notEqual: return s != t
        case .beginsWith: return s.hasPrefix(t)
        case .endsWith: return s.hasSuffix(t)
        case .contains: return s.contains(t)
        case .matches:
            // MATCHES is ICU's regular expression against the whole string.
            guard let expression = try? NSRegularExpression(pattern: "^(?:" + t + ")$") else { return nil }
            let range = NSRange(s.startIndex..., in: s)
            return expression.firstMatch(in: s, range: range) != nil
        default: return nil
        }
    }
}

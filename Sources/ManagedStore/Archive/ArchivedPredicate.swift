/// An attribute's archived validation predicates (`NSValidationPredicates`) and warnings
/// (`NSValidationWarnings`), read as `ValidationRule`s. The forms read are those genuine
/// caches hold: `NSComparisonPredicate` of `SELF` or `SELF.length` with a constant (Notes,
/// Screen Time, Photos), `NSCompoundPredicate` of those (CoreDataPlus), a warning that is an
/// error code or the model's own message. Any other form is kept as `unread`: it is shown,
/// and never decides a value's fate.
enum ArchivedPredicate {
    static func rules(of ref: Int, in archive: KeyedArchive) -> [ValidationRule] {
        // A real attribute has a few rules; a hostile archive may list a million.
        let predicates = archive.arrayReferences(archive.uid(archive.objects[ref]["NSValidationPredicates"])).prefix(maximumRules)
        // Each warning is a number (an error code) or a string (the model's message), by
        // reference or inline.
        var warnings: [PropertyListValue] = []
        if let list = archive.uid(archive.objects[ref]["NSValidationWarnings"]), case .array(let values)? = archive.objects[list]["NS.objects"] {
            warnings = values.map { value in archive.uid(value).map { archive.objects[$0] } ?? value }
        }
        return Array(predicates).enumerated().map { index, predicate in
            let raw = index < warnings.count ? warnings[index] : nil
            let warning: ValidationRule.Warning
            if let code = raw?.integerValue {
                warning = .code(Int(code))
            } else if let text = raw?.stringValue ?? raw?["NS.string"]?.stringValue {
                warning = .message(text)
            } else {
                // NSManagedObjectValidationError: a rule with no warning of its own.
                warning = .code(1550)
            }
            // Each rule reads at most `nodeBudget` predicates: an archive may share one
            // subpredicate many times over at every level, which a walk would read
            // exponentially often (FuzzModelCache's timeout).
            var budget = nodeBudget
            return ValidationRule(test(predicate, archive, depth: 0, budget: &budget), warning: warning)
        }
    }

    /// The most rules read for one attribute.
    static let maximumRules = 64

    /// The most predicates one rule is read from; a real rule has a handful.
    static let nodeBudget = 256

    static func test(_ ref: Int, _ archive: KeyedArchive, depth: Int, budget: inout Int) -> ValidationRule.Test {
        let className = archive.className(of: ref) ?? "an unnamed object"
        budget -= 1
        guard depth < 16, budget >= 0 else { return .unread(className) }
        switch className {
        case "NSCompoundPredicate":
            var parts: [ValidationRule.Test] = []
            for sub in archive.arrayReferences(archive.uid(archive.objects[ref]["NSSubpredicates"])) {
                guard budget > 0 else { return .unread(className) }
                parts.append(test(sub, archive, depth: depth + 1, budget: &budget))
            }
            switch archive.value(ref, "NSCompoundPredicateType")?.integerValue {
            case 0?: return parts.count == 1 ? .not(parts[0]) : .unread(className)
            case 1?: return .all(parts)
            case 2?: return .any(parts)
            default: return .unread(className)
            }
        case "NSComparisonPredicate":
            guard let left = archive.uid(archive.objects[ref]["NSLeftExpression"]), let right = archive.uid(archive.objects[ref]["NSRightExpression"]),
                  let op = archive.uid(archive.objects[ref]["NSPredicateOperator"]),
                  let type = archive.value(op, "NSOperatorType")?.integerValue, let comparison = ValidationRule.Comparison(rawValue: Int(type)),
                  (archive.value(op, "NSModifier")?.integerValue ?? 0) == 0 else { return .unread(className) }
            let operand: ValidationRule.Operand
            switch archive.className(of: left) {
            case "NSSelfExpression": operand = .value
            case "NSKeyPathExpression" where ArchivedExpression.text(of: left, in: archive) == "length": operand = .length
            default: return .unread(className)
            }
            guard archive.className(of: right) == "NSConstantValueExpression", let constant = constant(archive.value(right, "NSConstantValue")) else {
                return .unread(className)
            }
            return .compare(operand, comparison, constant)
        default:
            return .unread(className)
        }
    }

    private static func constant(_ value: PropertyListValue?) -> ValidationRule.Constant? {
        switch value {
        case .integer(let i)?: return .number(Double(i))
        case .real(let d)?: return .number(d)
        case .string(let s)?: return .text(s)
        case .dictionary?:
            // An NSDate ({NS.time}), an NSString object.
            if let time = value?["NS.time"], case .real(let t) = time { return .date(t) }
            if let text = value?["NS.string"]?.stringValue { return .text(text) }
            return nil
        default: return nil
        }
    }
}

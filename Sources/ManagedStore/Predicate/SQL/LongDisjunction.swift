extension PredicateCompiler {
    /// From how many terms an `OR` is a long chain.
    static let longDisjunction = 64

    /// A long `OR` with the equality tests of each attribute key path merged into one `IN`
    /// list, in the place of the first. SQLite's planner compares every pair of `OR` terms
    /// looking for that rewrite itself (40,000 terms: 22 s in a debug build, 0.85 s merged);
    /// merged, compiling grows linearly with the predicate. Only constants that are not nil are merged (`IN`
    /// does not match NULL where `== nil` does), only without `[cd]`, and only on attributes
    /// (a relationship compares object IDs); a key path tested once keeps its own SQL, and a
    /// short chain keeps the SQL Core Data writes.
    func disjunction(_ terms: [Predicate], _ ctx: Context) throws -> SQLFragment {
        var parts: [SQLFragment] = []
        var groups: [String: Int] = [:]
        var merged: [(slot: Int, term: Predicate, left: SQLOperand, values: [SQLFragment])] = []
        for term in terms {
            guard case .comparison(let c) = term, c.modifier == .direct, c.op == .equal, c.options.folding.isEmpty,
                  let path = c.left.keyPathComponents, case .evaluatedObject = path.base.kind,
                  case .constant(let value) = c.right.kind, Self.isScalar(value) else {
                parts.append(try compile(term, ctx).parenthesized())
                continue
            }
            let key = path.keys.joined(separator: ".")
            if let group = groups[key] {
                merged[group].values.append(constant(value).fragment)
                continue
            }
            let left = try operand(c.left, ctx)
            switch left.type {
            case .object, .array, .unknown:
                parts.append(try compile(term, ctx).parenthesized())
            default:
                groups[key] = merged.count
                merged.append((parts.count, term, left, [constant(value).fragment]))
                parts.append("")
            }
        }
        for group in merged {
            parts[group.slot] = group.values.count == 1
                ? try compile(group.term, ctx).parenthesized()
                : (group.left.fragment + " IN (" + SQLFragment.joined(group.values, separator: ", ") + ")").parenthesized()
        }
        let chain = SQLFragment.chained(parts, separator: " OR ")
        // Still long: SQLite would compare its terms pairwise too (whereCombineDisjuncts).
        // Under a unary plus the planner sees one opaque term; no index serves thousands of
        // ranges anyway.
        return parts.count >= Self.longDisjunction ? "+" + chain.parenthesized() : chain
    }

    private static func isScalar(_ value: PredicateValue) -> Bool {
        switch value {
        case .null, .array: return false
        default: return true
        }
    }
}

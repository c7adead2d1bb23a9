import Foundation
import GRDB

/// Compiles a predicate to the SQL Core Data's SQLite store would run for it
/// (predicate-grammar.md §5–6), against one store's mapping:
///
/// - to-one key paths become joins (inner when every use is in a conjunction, as Core Data
///   writes them, outer when an OR or NOT needs the rows without the relationship);
/// - to-many key paths become correlated subqueries: `EXISTS` for ANY, IN and CONTAINS,
///   `COUNT`/`SUM`/… for `@count` and the other collection operators and for SUBQUERY;
/// - a to-many key without a modifier is Core Data's error "to-many key not allowed here";
///   ALL and NONE on to-many are answered, with a warning that the app's fetch would fail;
/// - `!=` is SQL's `<>`, which drops NULL rows as Core Data's store does;
/// - string operators call the functions in `PredicateFunctions`.
///
/// Every constant is a bound parameter.
public final class PredicateCompiler {
    let mapping: StoreMapping
    let text: String
    private var aliasCount = 0
    /// What the app's own fetch would do differently, each said once.
    private(set) var warnings: [String] = []

    /// `text` is the predicate as the user wrote it, for error messages.
    public init(mapping: StoreMapping, text: String) {
        self.mapping = mapping
        self.text = text
    }

    /// The scope of the fetched entity, `t0`, whose FROM clause collects the joins that the
    /// predicate and the sort keys need.
    func rootScope(_ entity: EntityMapping) -> SQLScope {
        SQLScope(alias: "t0", entity: entity, from: FromClause(base: "\(SQL.identifier(entity.table)) t0"), path: "")
    }

    public static func compile(_ predicate: Predicate, text: String, entity: EntityMapping, mapping: StoreMapping) throws -> CompiledPredicate {
        let compiler = PredicateCompiler(mapping: mapping, text: text)
        let root = compiler.rootScope(entity)
        let condition = try compiler.condition(predicate, in: root)
        return CompiledPredicate(condition: condition, joins: String(root.from.sql.dropFirst(root.from.base.count)), warnings: compiler.warnings)
    }

    func condition(_ predicate: Predicate, in scope: SQLScope) throws -> SQLFragment {
        try compile(predicate, Context(scope: scope, variables: [:], outer: false))
    }

    func warn(_ message: String) {
        if !warnings.contains(message) { warnings.append(message) }
    }

    func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    func error(_ message: String, at position: Int) -> PredicateFormatError {
        PredicateFormatError(.unsupported, message, predicate: text, position: position)
    }

    func missingVariable(_ name: String, at position: Int) -> PredicateFormatError {
        var missing = error("variable $\(name) has no value", at: position)
        missing.missing = .variable(name)
        return missing
    }

    struct Context {
        var scope: SQLScope
        var variables: [String: SQLScope]
        /// Joins made here must keep rows whose relationship is nil (under OR, NOT, or inside
        /// a subquery).
        var outer: Bool
        /// Inside an ANY/ALL/NONE element or IN membership: a second to-many step is an error.
        var inCollection = false
    }

    // MARK: Predicates

    func compile(_ predicate: Predicate, _ ctx: Context) throws -> SQLFragment {
        switch predicate {
        case .constant(let b):
            return b ? "1" : "0"
        case .and(let terms):
            return SQLFragment.chained(try terms.map { try compile($0, ctx).parenthesized() }, separator: " AND ")
        case .or(let terms):
            var inner = ctx
            inner.outer = true
            if terms.count >= Self.longDisjunction { return try disjunction(terms, inner) }
            return SQLFragment.chained(try terms.map { try compile($0, inner).parenthesized() }, separator: " OR ")
        case .not(let term):
            var inner = ctx
            inner.outer = true
            return "NOT " + (try compile(term, inner)).parenthesized()
        case .comparison(let c):
            return try comparison(c, ctx)
        }
    }

    func comparison(_ c: Comparison, _ ctx: Context) throws -> SQLFragment {
        if c.op == .utiConformsTo || c.op == .utiEquals {
            throw error("\(c.op.rawValue) is a Spotlight operator; the SQLite store cannot evaluate it", at: c.position)
        }
        if c.modifier != .direct {
            return try aggregateComparison(c, ctx)
        }
        // `x IN toMany.key` and `toMany.key CONTAINS x` test membership in a to-many path.
        if c.op == .in, let split = try toManySplit(c.right, ctx) {
            return try membership(split, value: c.left, c, ctx)
        }
        if c.op == .contains, let split = try toManySplit(c.left, ctx) {
            return try membership(split, value: c.right, c, ctx)
        }
        let left = try operand(c.left, ctx)
        let right = try operand(c.right, ctx)
        return try compare(left, c.op, right, c.options, at: c.position)
    }

    /// ANY/ALL/NONE: the comparison runs on each element of the to-many step in the left key path.
    func aggregateComparison(_ c: Comparison, _ ctx: Context) throws -> SQLFragment {
        guard let split = try toManySplit(c.left, ctx) else {
            // No to-many step: the modifier has a single value to apply to.
            var direct = c
            direct.modifier = .direct
            let plain = try comparison(direct, ctx)
            return c.modifier == .notAny ? "NOT " + plain.parenthesized() : plain
        }
        let source = try enter(split, ctx)
        var inner = ctx
        inner.variables[Self.elementVariable] = source.element
        inner.outer = true
        inner.inCollection = true
        var elementComparison = c
        elementComparison.modifier = .direct
        elementComparison.left = split.rest(at: c.left.position)
        let test = try comparison(elementComparison, inner)
        switch c.modifier {
        case .all:
            warn("Core Data's SQLite store rejects ALL on a to-many relationship (\"unsupported predicate\"); it is answered here as the predicate means it, but the app's fetch would fail")
            return source.exists(test.parenthesized() + " IS NOT 1", negated: true)
        case .notAny:
            warn("Core Data's SQLite store does not answer NONE on a to-many relationship reliably; it is answered here as NOT (ANY …)")
            return source.exists(test, negated: true)
        default:
            return source.exists(test)
        }
    }

    func membership(_ split: ToManySplit, value: PredicateOperand, _ c: Comparison, _ ctx: Context) throws -> SQLFragment {
        let needle = try operand(value, ctx)
        let source = try enter(split, ctx)
        var inner = ctx
        inner.variables[Self.elementVariable] = source.element
        inner.outer = true
        inner.inCollection = true
        let item = try operand(split.rest(at: c.position), inner)
        return source.exists(try compare(item, .equal, needle, c.options, at: c.position))
    }
}

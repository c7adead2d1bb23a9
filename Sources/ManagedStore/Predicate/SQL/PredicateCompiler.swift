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

    // MARK: Comparing operands

    func compare(_ l: SQLOperand, _ op: ComparisonOperator, _ r: SQLOperand, _ options: ComparisonOptions, at position: Int) throws -> SQLFragment {
        var left = l, right = r
        try coerceObjectIDs(&left, &right, at: position)
        try coerceObjectIDs(&right, &left, at: position)
        let folding = options.folding
        switch op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            if op == .equal || op == .notEqual {
                let nullTest = op == .equal ? " IS NULL" : " IS NOT NULL"
                if left.constant == .null && right.constant == .null { return op == .equal ? "1" : "0" }
                if right.constant == .null { return left.fragment + nullTest }
                if left.constant == .null { return right.fragment + nullTest }
            }
            if left.type == .array || right.type == .array {
                throw error("a collection cannot be compared with \(op.rawValue); use IN", at: position)
            }
            let sqlOp = [ComparisonOperator.equal: "=", .notEqual: "<>", .less: "<", .lessOrEqual: "<=", .greater: ">", .greaterOrEqual: ">="][op]!
            return folded(left, folding) + " \(sqlOp) " + folded(right, folding)
        case .between:
            guard case .array(let bounds)? = right.constant, bounds.count == 2 else {
                throw error("BETWEEN needs two bounds, as in {low, high}", at: position)
            }
            return left.fragment + " BETWEEN " + constant(bounds[0]).fragment + " AND " + constant(bounds[1]).fragment
        case .in:
            if case .array(let items)? = right.constant {
                if items.isEmpty { return "0" }
                let list = items.map { folded(constant($0), folding) }
                return folded(left, folding) + " IN (" + SQLFragment.joined(list, separator: ", ") + ")"
            }
            if right.type == .array, let list = right.list {
                return left.fragment + " IN (" + SQLFragment.joined(list, separator: ", ") + ")"
            }
            guard right.type == .string || right.type == .unknown else {
                throw error("IN needs a collection on its right ({…}, %@ with an array, or a to-many key path)", at: position)
            }
            return "cdi_search(" + right.fragment + ", " + left.fragment + ", 0, \(folding.rawValue))"
        case .contains:
            if case .array(let items)? = left.constant {
                if items.isEmpty { return "0" }
                let list = items.map { folded(constant($0), folding) }
                return folded(right, folding) + " IN (" + SQLFragment.joined(list, separator: ", ") + ")"
            }
            return "cdi_search(" + left.fragment + ", " + right.fragment + ", 0, \(folding.rawValue))"
        case .beginsWith:
            return "cdi_search(" + left.fragment + ", " + right.fragment + ", 1, \(folding.rawValue))"
        case .endsWith:
            return "cdi_search(" + left.fragment + ", " + right.fragment + ", 2, \(folding.rawValue))"
        case .like:
            return "cdi_like(" + left.fragment + ", " + right.fragment + ", \(folding.rawValue))"
        case .matches:
            if case .string(let pattern)? = right.constant, StringMatching.matches("", pattern, folding) == nil {
                throw error("invalid regular expression for MATCHES: \(pattern)", at: position)
            }
            return "cdi_matches(" + left.fragment + ", " + right.fragment + ", \(folding.rawValue))"
        case .utiConformsTo, .utiEquals:
            throw error("\(op.rawValue) is a Spotlight operator; the SQLite store cannot evaluate it", at: position)
        }
    }

    /// `[c]`/`[d]` folding of one side: a constant is folded here, a column by `cdi_fold`.
    /// Values that are not text pass through, so options on numbers are ignored.
    func folded(_ o: SQLOperand, _ folding: ComparisonOptions) -> SQLFragment {
        guard !folding.isEmpty, o.type == .string || o.type == .unknown else { return o.fragment }
        if case .string(let s)? = o.constant { return .bind(StringMatching.fold(s, folding).databaseValue) }
        return "cdi_fold(" + o.fragment + ", \(folding.rawValue))"
    }

    /// A string constant compared with a relationship or SELF is an object ID
    /// (`x-coredata://…/Person/p3` or `Person/p3`); it compares as the primary key.
    func coerceObjectIDs(_ object: inout SQLOperand, _ other: inout SQLOperand, at position: Int) throws {
        guard case .object(let entityName) = object.type else { return }
        func key(_ value: PredicateValue) throws -> PredicateValue {
            switch value {
            case .null: return .null
            case .integer: return value
            case .string(let s):
                guard let id = ObjectID.parse(s) else {
                    throw error("'\(s)' is not an object ID (write Entity/pN or x-coredata://UUID/Entity/pN)", at: position)
                }
                guard let target = mapping.entity(named: id.entityName), let destination = mapping.entity(named: entityName),
                      destination.entityIDs.contains(target.entityID ?? -1) || target.name == destination.name else {
                    throw error("\(s) is not a \(entityName)", at: position)
                }
                return .integer(id.primaryKey)
            case .array(let items): return .array(try items.map(key))
            default:
                throw error("a \(entityName) object can only be compared with an object ID or nil", at: position)
            }
        }
        guard let value = other.constant else { return }
        let converted = try key(value)
        other = constant(converted)
    }

    // MARK: Operands

    enum ValueType: Equatable {
        case string, number, date, blob, null, array, unknown
        case object(String)
    }

    struct SQLOperand {
        var fragment: SQLFragment
        var type: ValueType
        var constant: PredicateValue?
        /// The items of a `{…}` holding expressions.
        var list: [SQLFragment]?
    }

    func constant(_ value: PredicateValue) -> SQLOperand {
        switch value {
        case .null: return SQLOperand(fragment: .bind(.null), type: .null, constant: value)
        case .bool(let b): return SQLOperand(fragment: .bind((b ? 1 : 0).databaseValue), type: .number, constant: value)
        case .integer(let i): return SQLOperand(fragment: .bind(i.databaseValue), type: .number, constant: value)
        case .double(let d): return SQLOperand(fragment: .bind(d.databaseValue), type: .number, constant: value)
        case .string(let s): return SQLOperand(fragment: .bind(s.databaseValue), type: .string, constant: value)
        case .date(let d): return SQLOperand(fragment: .bind(d.databaseValue), type: .date, constant: value)
        case .array(let items):
            let list = items.map { constant($0).fragment }
            return SQLOperand(fragment: "(" + SQLFragment.joined(list, separator: ", ") + ")", type: .array, constant: value, list: list)
        }
    }

    func operand(_ e: PredicateOperand, _ ctx: Context) throws -> SQLOperand {
        switch e.kind {
        case .constant(let value):
            return constant(value)
        case .evaluatedObject:
            return SQLOperand(fragment: SQLFragment(ctx.scope.primaryKey), type: .object(ctx.scope.entity.name))
        case .variable(let name):
            guard let scope = ctx.variables[name] else {
                throw missingVariable(name, at: e.position)
            }
            return SQLOperand(fragment: SQLFragment(scope.primaryKey), type: .object(scope.entity.name))
        case .keyPath:
            return try keyPath(e, ctx)
        case .aggregate(let items):
            let list = try items.map { try operand($0, ctx).fragment }
            return SQLOperand(fragment: "(" + SQLFragment.joined(list, separator: ", ") + ")", type: .array, list: list)
        case .arithmetic(let op, let a, let b):
            let x = try operand(a, ctx), y = try operand(b, ctx)
            switch op {
            case .divide: return SQLOperand(fragment: "(CAST(" + x.fragment + " AS REAL) / " + y.fragment + ")", type: .number)
            case .power: return SQLOperand(fragment: "cdi_power(" + x.fragment + ", " + y.fragment + ")", type: .number)
            default: return SQLOperand(fragment: "(" + x.fragment + " \(op.rawValue) " + y.fragment + ")", type: x.type == .date ? .date : .number)
            }
        case .negate(let a):
            return SQLOperand(fragment: "(- " + (try operand(a, ctx)).fragment + ")", type: .number)
        case .function(let name, let arguments):
            return try function(name, arguments, at: e.position, ctx)
        case .cast(let value, let type):
            let inner = try operand(value, ctx)
            switch type {
            case "NSDate": return SQLOperand(fragment: inner.fragment, type: .date)
            case "NSNumber": return SQLOperand(fragment: "CAST(" + inner.fragment + " AS REAL)", type: .number)
            case "NSString": return SQLOperand(fragment: "CAST(" + inner.fragment + " AS TEXT)", type: .string)
            default: throw error("CAST to \(type) is not supported (NSDate, NSNumber and NSString are)", at: e.position)
            }
        case .index(let base, .size):
            return try keyPath(PredicateOperand(.keyPath(base, "@count"), at: e.position), ctx)
        case .index:
            throw error("[FIRST], [LAST] and [n] are not supported by the SQLite store; use SUBQUERY or @count", at: e.position)
        case .selectorCall(_, let selector, _):
            throw error("FUNCTION(…, '\(selector)') calls a method; the SQLite store cannot run it", at: e.position)
        case .subquery:
            throw error("SUBQUERY(…) must be followed by .@count here", at: e.position)
        }
    }

    func function(_ name: String, _ arguments: [PredicateOperand], at position: Int, _ ctx: Context) throws -> SQLOperand {
        if name == "now" {
            guard arguments.isEmpty else { throw error("now() takes no arguments", at: position) }
            return constant(.date(Date().timeIntervalSinceReferenceDate))
        }
        let math = ["abs", "sqrt", "log", "ln", "exp", "floor", "ceiling", "trunc"]
        guard math.contains(name) else { throw error("function \(name)() is not supported in a fetch", at: position) }
        guard arguments.count == 1 else { throw error("\(name)() takes one argument", at: position) }
        let x = try operand(arguments[0], ctx)
        if name == "abs" { return SQLOperand(fragment: "abs(" + x.fragment + ")", type: .number) }
        return SQLOperand(fragment: "cdi_math('\(name)', " + x.fragment + ")", type: .number)
    }

    // MARK: Key paths

    static let elementVariable = "\u{1}element"

    func startScope(_ base: PredicateOperand, _ ctx: Context) throws -> SQLScope? {
        switch base.kind {
        case .evaluatedObject: return ctx.scope
        case .variable(let name):
            guard let scope = ctx.variables[name] else {
                throw missingVariable(name, at: base.position)
            }
            return scope
        default: return nil
        }
    }

    func property(_ key: String, of entity: EntityMapping) -> (AttributeMapping?, RelationshipMapping?) {
        if let a = entity.attributes.first(where: { $0.attribute.name == key }) { return (a, nil) }
        if let r = entity.relationships.first(where: { $0.relationship.name == key }) { return (nil, r) }
        if mapping.model.source.namesAreCaseInsensitive {
            return (entity.attributes.first { $0.attribute.name.caseInsensitiveCompare(key) == .orderedSame },
                    entity.relationships.first { $0.relationship.name.caseInsensitiveCompare(key) == .orderedSame })
        }
        return (nil, nil)
    }

    /// A composite named whole (`address == nil`) or followed by a key it does not have.
    func compositeError(_ key: String, _ keys: [String], from i: Int, _ entity: EntityMapping, at position: Int) -> PredicateFormatError {
        let leaves = entity.attributes.map(\.attribute.name).filter { $0.hasPrefix(key + ".") }
        let path = keys[i...].joined(separator: ".")
        let what = path == key ? "\(key) is a composite attribute of \(entity.name)" : "\(path) is not an element of the composite \(key)"
        return error("\(what); compare its elements: \(leaves.joined(separator: ", "))", at: position)
    }

    func notFound(_ key: String, _ entity: EntityMapping, at position: Int) -> PredicateFormatError {
        let names = entity.attributes.map(\.attribute.name) + entity.relationships.map(\.relationship.name)
        let hint = Spelling.nearest(key, in: names).map { " (did you mean '\($0)'?)" } ?? ""
        return error("keypath \(key) not found in entity \(entity.name)\(hint)", at: position)
    }

    func destination(_ r: RelationshipMapping, at position: Int) throws -> EntityMapping {
        guard let d = mapping.entity(named: r.relationship.destinationEntityName) else {
            throw error("relationship \(r.relationship.name) leads to \(r.relationship.destinationEntityName), which this store does not have", at: position)
        }
        return d
    }

    static func type(of attribute: AttributeDescription) -> ValueType {
        switch attribute.type {
        case .string, .uri: return .string
        case .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean: return .number
        case .date: return .date
        case .binaryData, .uuid, .transformable: return .blob
        default: return .unknown
        }
    }

    /// Follows a to-one relationship from `scope`, joining its destination once per path.
    func follow(_ r: RelationshipMapping, from scope: SQLScope, _ ctx: Context, at position: Int) throws -> SQLScope {
        guard case .foreignKey(let column, _) = r.storage else {
            throw error("relationship \(r.relationship.name) has no key column in this store (\(r.storage.summary))", at: position)
        }
        let target = try destination(r, at: position)
        let path = scope.path + "." + r.relationship.name
        let sourceColumn = scope.column(column)
        let alias = scope.from.join(key: path, table: target.table,
                                    on: { "\(sourceColumn) = \($0).\(SQL.identifier(target.primaryKeyColumn))" },
                                    outer: ctx.outer, newAlias: newAlias)
        return SQLScope(alias: alias, entity: target, from: scope.from, path: path)
    }

    func keyPath(_ e: PredicateOperand, _ ctx: Context) throws -> SQLOperand {
        guard let (base, keys) = e.keyPathComponents else { return try operand(e, ctx) }
        if case .subquery(let collection, let variable, let predicate) = base.kind {
            guard keys == ["@count"] else { throw error("SUBQUERY(…) must be followed by .@count", at: e.position) }
            return try subqueryCount(collection, variable, predicate, at: base.position, ctx)
        }
        guard var scope = try startScope(base, ctx) else {
            throw error("a key path must start at SELF or a variable", at: e.position)
        }
        var i = 0
        while i < keys.count {
            let key = keys[i]
            let last = i == keys.count - 1
            if key.hasPrefix("@") {
                throw error("\(key) needs a to-many relationship before it", at: e.position)
            }
            if let (leaf, end) = scope.entity.compositeLeaf(keys, from: i), end == keys.count - 1 {
                guard let column = leaf.column else {
                    throw error("\(leaf.attribute.name) is not stored in the store (transient or unmapped); a fetch cannot test it", at: e.position)
                }
                return SQLOperand(fragment: SQLFragment(scope.column(column)), type: Self.type(of: leaf.attribute))
            }
            if scope.entity.isComposite(key) { throw compositeError(key, keys, from: i, scope.entity, at: e.position) }
            let (attribute, relationship) = property(key, of: scope.entity)
            if let attribute {
                guard last else {
                    throw error("\(key) is an attribute of \(scope.entity.name); it has no key \(keys[i + 1])", at: e.position)
                }
                guard let column = attribute.column else {
                    throw error("\(key) is not stored in the store (transient or unmapped); a fetch cannot test it", at: e.position)
                }
                return SQLOperand(fragment: SQLFragment(scope.column(column)), type: Self.type(of: attribute.attribute))
            }
            guard let relationship else { throw notFound(key, scope.entity, at: e.position) }
            if !relationship.relationship.isToMany {
                if last {
                    guard case .foreignKey(let column, _) = relationship.storage else {
                        throw error("relationship \(key) has no key column in this store", at: e.position)
                    }
                    return SQLOperand(fragment: SQLFragment(scope.column(column)), type: .object(relationship.relationship.destinationEntityName))
                }
                scope = try follow(relationship, from: scope, ctx, at: e.position)
                i += 1
                continue
            }
            // A to-many step: only a collection operator may follow it here.
            let rest = Array(keys[(i + 1)...])
            guard let op = rest.first, op.hasPrefix("@") else {
                throw error(ctx.inCollection ? "multiple to-many keys not allowed here" : "to-many key not allowed here (\(key) is a to-many relationship; use ANY, @count or SUBQUERY)", at: e.position)
            }
            return try collectionOperator(op, over: relationship, from: scope, path: Array(rest.dropFirst()), ctx, at: e.position)
        }
        return SQLOperand(fragment: SQLFragment(scope.primaryKey), type: .object(scope.entity.name))
    }

    func collectionOperator(_ op: String, over r: RelationshipMapping, from scope: SQLScope, path: [String], _ ctx: Context, at position: Int) throws -> SQLOperand {
        let source = try toManySource(r, from: scope, at: position)
        switch op.lowercased() {
        case "@count":
            guard path.isEmpty else { throw error("@count ends a key path", at: position) }
            return SQLOperand(fragment: SQLFragment("(SELECT COUNT(*) FROM \(source.from.sql) WHERE \(source.correlation))"), type: .number)
        case "@sum", "@avg", "@min", "@max":
            guard !path.isEmpty else { throw error("\(op) needs a key after it, as in \(r.relationship.name).\(op).price", at: position) }
            var inner = ctx
            inner.variables[Self.elementVariable] = source.element
            inner.outer = true
            inner.inCollection = true
            var node = PredicateOperand(.variable(Self.elementVariable), at: position)
            for key in path { node = PredicateOperand(.keyPath(node, key), at: position) }
            let value = try keyPath(node, inner)
            let function = ["@sum": "TOTAL", "@avg": "AVG", "@min": "MIN", "@max": "MAX"][op.lowercased()]!
            // Foundation's @sum of nothing is 0, as TOTAL is; TOTAL is always REAL, which
            // compares equal to the same integer.
            return SQLOperand(fragment: "(SELECT \(function)(" + value.fragment + ") FROM \(source.element.from.sql) WHERE \(source.correlation))",
                           type: value.type == .date ? .date : .number)
        default:
            throw error("unknown collection operator \(op) (@count, @sum, @avg, @min, @max)", at: position)
        }
    }

    func subqueryCount(_ collection: PredicateOperand, _ variable: String, _ predicate: Predicate, at position: Int, _ ctx: Context) throws -> SQLOperand {
        guard let split = try toManySplit(collection, ctx), split.rest.isEmpty else {
            throw error("the collection of a SUBQUERY must be a to-many relationship", at: collection.position)
        }
        let source = try enter(split, ctx)
        var inner = ctx
        inner.variables[variable] = source.element
        inner.outer = true
        let test = try compile(predicate, inner)
        return SQLOperand(fragment: "(SELECT COUNT(" + source.element.primaryKey + ") FROM " + source.from.sql + " WHERE " + source.correlation + " AND " + test.parenthesized() + ")",
                       type: .number)
    }

    // MARK: To-many steps

    /// A key path cut at its first to-many step: what leads to it, the relationship, and the
    /// keys after it.
    struct ToManySplit {
        let base: PredicateOperand
        let prefix: [String]
        let relationshipKey: String
        let rest: [String]

        /// The keys after the to-many step, as a key path from the element.
        func rest(at position: Int) -> PredicateOperand {
            var node = PredicateOperand(.variable(PredicateCompiler.elementVariable), at: position)
            for key in rest { node = PredicateOperand(.keyPath(node, key), at: position) }
            return node
        }
    }

    /// Where `e` crosses a to-many relationship that is not followed by a collection
    /// operator, without touching any scope (so that a path that turns out not to need it
    /// leaves no join behind).
    func toManySplit(_ e: PredicateOperand, _ ctx: Context) throws -> ToManySplit? {
        guard let (base, keys) = e.keyPathComponents, let start = try startScope(base, ctx) else { return nil }
        var entity = start.entity
        for (i, key) in keys.enumerated() {
            let (attribute, relationship) = property(key, of: entity)
            if attribute != nil { return nil }
            guard let relationship else { throw notFound(key, entity, at: e.position) }
            if relationship.relationship.isToMany {
                let rest = Array(keys[(i + 1)...])
                if let next = rest.first, next.hasPrefix("@") { return nil }
                return ToManySplit(base: base, prefix: Array(keys[..<i]), relationshipKey: key, rest: rest)
            }
            entity = try destination(relationship, at: e.position)
        }
        return nil
    }

    struct ToManySource {
        let from: FromClause
        let correlation: String
        let element: SQLScope

        func exists(_ test: SQLFragment, negated: Bool = false) -> SQLFragment {
            (negated ? "NOT EXISTS (SELECT 1 FROM " : "EXISTS (SELECT 1 FROM ") + from.sql + " WHERE " + correlation + " AND " + test.parenthesized() + ")"
        }
    }

    /// Follows the split's to-one prefix, then opens a correlated FROM over the to-many's
    /// destination. Callers read `from.sql` only after compiling the element's test, since
    /// that may add joins to it.
    func enter(_ split: ToManySplit, _ ctx: Context) throws -> ToManySource {
        guard var scope = try startScope(split.base, ctx) else { throw error("a key path must start at SELF or a variable", at: split.base.position) }
        for key in split.prefix {
            guard case (_, let relationship?) = property(key, of: scope.entity) else { throw notFound(key, scope.entity, at: split.base.position) }
            scope = try follow(relationship, from: scope, ctx, at: split.base.position)
        }
        guard case (_, let relationship?) = property(split.relationshipKey, of: scope.entity) else {
            throw notFound(split.relationshipKey, scope.entity, at: split.base.position)
        }
        return try toManySource(relationship, from: scope, at: split.base.position)
    }

    func toManySource(_ r: RelationshipMapping, from scope: SQLScope, at position: Int) throws -> ToManySource {
        let target = try destination(r, at: position)
        let alias = newAlias()
        var from: FromClause
        var correlation: String
        switch r.storage {
        case .inverseForeignKey(let table, let column, _), .hiddenForeignKey(let table, let column, _):
            from = FromClause(base: "\(SQL.identifier(table)) \(alias)")
            correlation = "\(alias).\(SQL.identifier(column)) = \(scope.primaryKey)"
        case .joinTable(let table, let sourceColumn, let destinationColumn, _):
            let link = newAlias()
            from = FromClause(base: "\(SQL.identifier(table)) \(link) JOIN \(SQL.identifier(target.table)) \(alias) ON \(alias).\(SQL.identifier(target.primaryKeyColumn)) = \(link).\(SQL.identifier(destinationColumn))")
            correlation = "\(link).\(SQL.identifier(sourceColumn)) = \(scope.primaryKey)"
        case .foreignKey:
            throw error("\(r.relationship.name) is not a to-many relationship", at: position)
        case .none(let reason):
            throw error("relationship \(r.relationship.name) cannot be followed in this store: \(reason)", at: position)
        }
        if let filter = entityFilter(alias: alias, target) { correlation += " AND " + filter }
        return ToManySource(from: from, correlation: correlation,
                            element: SQLScope(alias: alias, entity: target, from: from, path: ""))
    }

    /// `Z_ENT` test for an entity that shares its table with others.
    public func entityFilter(alias: String, _ entity: EntityMapping) -> String? {
        guard entity.tableHasSubentities, let column = entity.entityColumn else { return nil }
        let all = mapping.entities.filter { $0.table == entity.table }.compactMap(\.entityID)
        guard Set(all) != Set(entity.entityIDs) else { return nil }
        let ids = entity.entityIDs.sorted()
        let test = ids.count == 1 ? " = \(ids[0])" : " IN (\(ids.map(String.init).joined(separator: ", ")))"
        return "\(alias).\(SQL.identifier(column))" + test
    }
}

extension PredicateCompiler {
    /// A property of the fetched entity or a to-one key path from it, as a SELECT column:
    /// joins are outer, so that rows without the relationship are still returned.
    struct Selected {
        let name: String
        let sql: String
        let attribute: AttributeDescription?
        /// For a to-one relationship: its destination, and the column naming the concrete entity.
        let destination: String?
        let entityColumnSQL: String?
    }

    /// `toManyKeys`: a key ending at a to-many relationship is accepted (as `NULL`, its
    /// destinations being read through the object, as a fault fires), where a dictionary
    /// fetch, like Core Data's `propertiesToFetch`, refuses it. `KEY.@count` after a to-many
    /// relationship is always accepted: the count subquery an `NSExpressionDescription`
    /// of `count:` selects.
    func selectable(_ keyPath: String, in root: SQLScope, toManyKeys: Bool = false) throws -> Selected {
        let keys = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var scope = root
        let ctx = Context(scope: root, variables: [:], outer: true)
        for (i, key) in keys.enumerated() {
            let last = i == keys.count - 1
            if let (leaf, end) = scope.entity.compositeLeaf(keys, from: i), end == keys.count - 1 {
                guard let column = leaf.column else { throw error("\(keyPath) is not stored in the store", at: 0) }
                return Selected(name: keyPath, sql: scope.column(column), attribute: leaf.attribute, destination: nil, entityColumnSQL: nil)
            }
            if scope.entity.isComposite(key) { throw compositeError(key, keys, from: i, scope.entity, at: 0) }
            let (attribute, relationship) = property(key, of: scope.entity)
            if let attribute, last {
                guard let column = attribute.column else { throw error("\(keyPath) is not stored in the store", at: 0) }
                return Selected(name: keyPath, sql: scope.column(column), attribute: attribute.attribute, destination: nil, entityColumnSQL: nil)
            }
            guard let relationship, !relationship.relationship.isToMany else {
                if let relationship {
                    if i == keys.count - 2, keys[i + 1] == "@count" {
                        let counted = try self.keyPath(Self.keyPathNode(keyPath), Context(scope: root, variables: [:], outer: true))
                        guard counted.fragment.arguments.isEmpty else { throw error("\(keyPath) cannot be selected", at: 0) }
                        return Selected(name: keyPath, sql: counted.fragment.sql,
                                        attribute: AttributeDescription(name: "@count", type: .integer64, isOptional: false),
                                        destination: nil, entityColumnSQL: nil)
                    }
                    if last, toManyKeys {
                        return Selected(name: keyPath, sql: "NULL", attribute: nil,
                                        destination: relationship.relationship.destinationEntityName, entityColumnSQL: nil)
                    }
                    if last {
                        throw error("\(key) is a to-many relationship, which a dictionary result cannot hold; "
                                    + "fetch \(keyPath).@count, or the objects", at: 0)
                    }
                    throw error("\(keyPath): to-many key not allowed here", at: 0)
                }
                if attribute != nil { throw error("\(key) is an attribute of \(scope.entity.name); it has no key \(keys[i + 1])", at: 0) }
                throw notFound(key, scope.entity, at: 0)
            }
            if last {
                guard case .foreignKey(let column, let entityColumn) = relationship.storage else {
                    throw error("relationship \(key) has no key column in this store", at: 0)
                }
                return Selected(name: keyPath, sql: scope.column(column), attribute: nil,
                                destination: relationship.relationship.destinationEntityName,
                                entityColumnSQL: entityColumn.map { scope.column($0) })
            }
            scope = try follow(relationship, from: scope, ctx, at: 0)
        }
        throw error("empty key path", at: 0)
    }

    /// A sort key as an ORDER BY term.
    func orderTerm(_ keyPath: String, in root: SQLScope) throws -> SQLFragment {
        try self.keyPath(Self.keyPathNode(keyPath), Context(scope: root, variables: [:], outer: true)).fragment
    }

    /// A dotted key path as the parser would have read it from a predicate.
    static func keyPathNode(_ keyPath: String) -> PredicateOperand {
        var node = PredicateOperand(.evaluatedObject, at: 0)
        for key in keyPath.split(separator: ".", omittingEmptySubsequences: false) { node = PredicateOperand(.keyPath(node, String(key)), at: 0) }
        return node
    }
}

import Foundation
import GRDB

/// Key paths: following relationships from a scope, collection operators, SUBQUERY.
extension PredicateCompiler {
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
                return SQLOperand(fragment: SQLFragment(scope.column(column)), type: Self.type(of: leaf.attribute),
                                  json: leaf.attribute.holdsJSON ? leaf.attribute.name : nil,
                                  attribute: "\(scope.entity.name).\(keys[i...end].joined(separator: "."))")
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
                return SQLOperand(fragment: SQLFragment(scope.column(column)), type: Self.type(of: attribute.attribute),
                                  json: attribute.attribute.holdsJSON ? attribute.attribute.name : nil,
                                  attribute: "\(scope.entity.name).\(key)")
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
}

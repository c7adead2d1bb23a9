import Foundation
import GRDB

/// To-many steps: where a key path crosses a to-many relationship, and the correlated subquery it becomes.
extension PredicateCompiler {
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
            // An attribute, or a composite's element (`compiledTags.flavors`), ends the path here.
            if attribute != nil || (relationship == nil && entity.isComposite(key)) { return nil }
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

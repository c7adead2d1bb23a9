/// The `FROM` clause of one SELECT (the fetch itself, or a correlated subquery): a base
/// table and the to-one joins key paths have asked for, each made once and shared.
final class FromClause {
    let base: String
    private(set) var joins: [Join] = []

    struct Join {
        let key: String
        let alias: String
        let on: String
        let table: String
        var isOuter: Bool
    }

    init(base: String) {
        self.base = base
    }

    var sql: String {
        base + joins.map { " \($0.isOuter ? "LEFT OUTER JOIN" : "JOIN") \(SQL.identifier($0.table)) \($0.alias) ON \($0.on)" }.joined()
    }

    /// Returns the alias for a join, creating it or widening it to an outer join when a use
    /// needs rows whose relationship is nil kept.
    func join(key: String, table: String, on: (String) -> String, outer: Bool, newAlias: () -> String) -> String {
        if let i = joins.firstIndex(where: { $0.key == key }) {
            if outer { joins[i].isOuter = true }
            return joins[i].alias
        }
        let alias = newAlias()
        joins.append(Join(key: key, alias: alias, on: on(alias), table: table, isOuter: outer))
        return alias
    }
}

/// An entity seen through an alias: `t0` for the fetched object, `t1`… for joined or
/// iterated ones. Key paths are resolved from a scope.
struct SQLScope {
    let alias: String
    let entity: EntityMapping
    let from: FromClause
    /// The scope's path from its FROM base, so equal key paths share a join.
    let path: String

    func column(_ name: String) -> String { "\(alias).\(SQL.identifier(name))" }
    var primaryKey: String { column(entity.primaryKeyColumn) }
}

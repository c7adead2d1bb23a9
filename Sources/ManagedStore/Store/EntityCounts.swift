import GRDB

/// Row counts per entity: its own rows and, as a fetch of it counts, its rows plus those of
/// every sub-entity. One query per table, whatever the number of entities in it: grouped by
/// `Z_ENT` where entities share the table, a plain `COUNT(*)` where one owns it (SQLite counts
/// a table's cells without decoding a row, and a fetch of that entity reads every row of the
/// table too).
public struct EntityCounts: Sendable {
    public let own: [String: Int]
    public let total: [String: Int]

    public static func read(_ store: PersistentStore, _ db: Database) throws -> EntityCounts {
        var own: [String: Int] = [:]
        var total: [String: Int] = [:]
        var byTable: [String: [EntityMapping]] = [:]
        for entity in store.mapping.entities { byTable[entity.table, default: []].append(entity) }
        for (table, entities) in byTable {
            guard store.schema.table(table) != nil else { continue }
            let quoted = SQL.identifier(table)
            if entities.count > 1, let column = entities.first?.entityColumn {
                var perID: [Int: Int] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT \(column), COUNT(*) FROM \(quoted) GROUP BY \(column)") {
                    perID[row.lenient(0) ?? 0, default: 0] += row.lenient(1) ?? 0
                }
                for entity in entities {
                    own[entity.name] = entity.entityID.flatMap { perID[$0] } ?? 0
                    total[entity.name] = entity.entityIDs.reduce(0) { $0 + (perID[$1] ?? 0) }
                }
            } else {
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted)") ?? 0
                for entity in entities {
                    own[entity.name] = count
                    total[entity.name] = count
                }
            }
        }
        return EntityCounts(own: own, total: total)
    }
}

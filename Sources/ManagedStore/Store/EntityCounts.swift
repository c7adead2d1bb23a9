import GRDB

/// Row counts per entity: its own rows and, as a fetch of it counts, its rows plus those of
/// every sub-entity. One query per table, whatever the number of entities in it: grouped by
/// `Z_ENT` where entities share the table (through its `Z_ENT` index, which the genuine
/// stores among the fixtures have on every such table), a plain `COUNT(*)` where one owns it
/// (SQLite counts the cells of the table's smallest b-tree without decoding a row).
///
/// Counting a hierarchy from ranges of the `Z_ENT` index instead (`COUNT(*)` of the table,
/// then every entity's range but the most numerous) was measured slower: `COUNT(*)` reads
/// another index (SQLite picks the smallest), and touching its pages through the memory map
/// cost more than grouping saves (`entities` on a million people, `perf stat -r 5` on a
/// loaded machine: 0.13–0.17 s grouped, 0.21–0.24 s by ranges).
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
                let perID = try groupedCounts(db, table: quoted, column: column)
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

    /// Rows per value of the entity column, by visiting every row. Only whole numbers name an
    /// entity, as `Z_ENT IN (…)` matches them: a hand-edited 1.5 or 'x' belongs to none.
    static func groupedCounts(_ db: Database, table: String, column: String) throws -> [Int: Int] {
        var perID: [Int: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT \(column), COUNT(*) FROM \(table) GROUP BY \(column)") {
            let id: Int?
            switch (row[0] as DatabaseValue).storage {
            case .int64(let i): id = Int(exactly: i)
            case .double(let d): id = Int(exactly: d)
            default: id = nil
            }
            if let id { perID[id, default: 0] += row.lenient(1) ?? 0 }
        }
        return perID
    }
}

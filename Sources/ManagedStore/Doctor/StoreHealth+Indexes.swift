import Foundation
import GRDB

/// doctor on indexes: the fetch indexes the model declares that the store lacks (Core Data
/// creates `Z_<Entity>_<name>` for each; a store migrated by hand, or created by another
/// tool, may not have them), to-one keys with no index on a table large enough for it to
/// matter (Core Data creates `<TABLE>_<COLUMN>_INDEX` for each), and SQLite's statistics: never
/// gathered, or gathered when the tables were a fraction of their size.
extension StoreHealth {
    /// Rows past which a to-one key without an index is worth naming: below, a scan costs little.
    static let unindexedKeyRows = 10_000
    /// Rows past which a store without statistics is worth a note.
    static let statisticsRows = 100_000

    func indexes(_ db: Database) throws -> [DoctorFinding] {
        var found: [DoctorFinding] = []
        var indexed: [String: [[String]]] = [:]
        var names: Set<String> = []
        // Every name: an R-tree fetch index is a virtual table, Z_RT_<Entity>_<name>.
        for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master") { names.insert(name.uppercased()) }
        for index in try SchemaSnapshot.indexes(db) {
            indexed[index.table.uppercased(), default: []].append(index.columns.map { $0.uppercased() })
        }
        var rows: [String: Int] = [:]
        func rowCount(_ table: String) throws -> Int {
            if let known = rows[table] { return known }
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(table))") ?? 0
            rows[table] = count
            return count
        }
        for entity in store.model.entities {
            guard let mapping = try? store.entity(entity.name), store.schema.table(mapping.table) != nil else { continue }
            for index in entity.fetchIndexes {
                let missing = "Z_\(entity.name)_\(index.name)"
                guard !names.contains(missing.uppercased()), !names.contains("Z_RT_\(entity.name)_\(index.name)".uppercased()) else { continue }
                found.append(DoctorFinding(.warning, "fetch_index_missing", entity: entity.name, property: index.elements.map(\.propertyName).joined(separator: ","),
                                           count: 1, detail: "the model's fetch index \(index.name) is not in the store (no index \(missing)): "
                                               + "fetches it was declared for read the whole \(entity.name) table; Core Data creates it when it "
                                               + "creates or migrates the store"))
            }
        }
        for mapping in store.mapping.entities where mapping.superentityName == nil && store.schema.table(mapping.table) != nil {
            for r in mapping.relationships {
                guard case .foreignKey(let column, _) = r.storage else { continue }
                let covered = indexed[mapping.table.uppercased(), default: []].contains { $0.first == column.uppercased() }
                guard !covered else { continue }
                let count = try rowCount(mapping.table)
                guard count >= Self.unindexedKeyRows else { continue }
                found.append(DoctorFinding(.warning, "to_one_unindexed", entity: mapping.name, property: r.relationship.name, count: Int64(count),
                                           detail: "the to-one key \(column) of \(mapping.table) has no index (Core Data creates "
                                               + "\(mapping.table)_\(column)_INDEX): following \(r.relationship.inverseName.map { "the inverse \($0)" } ?? "it back") "
                                               + "reads all \(count.groupedDigits) rows each time"))
            }
        }
        guard try db.tableExists("sqlite_stat1") else {
            // Said only where a table is large enough for the planner's guesses to matter.
            let largest = try store.mapping.entities.filter { $0.superentityName == nil && store.schema.table($0.table) != nil }
                .map { try rowCount($0.table) }.max() ?? 0
            if largest >= Self.statisticsRows {
                found.append(DoctorFinding(.info, "statistics_never_gathered", count: Int64(largest),
                                           detail: "SQLite has no statistics for this store (no ANALYZE; Core Data runs none): it plans with "
                                               + "its defaults, which choose well for Core Data's own indexes"))
            }
            return found
        }
        for row in try Row.fetchAll(db, sql: "SELECT tbl, stat FROM sqlite_stat1 WHERE idx IS NULL OR idx = tbl GROUP BY tbl") {
            let table: String = row[0] ?? ""
            guard store.schema.table(table) != nil, let stat: String = row[1],
                  let analysed = stat.split(separator: " ").first.flatMap({ Int($0) }) else { continue }
            let now = try rowCount(table)
            guard now >= 1_000, analysed == 0 || now >= analysed * 2 || now * 2 <= analysed else { continue }
            let entity = store.mapping.rootEntity(ofTable: table)?.name
            found.append(DoctorFinding(.warning, "statistics_stale", entity: entity, count: Int64(now),
                                       detail: "SQLite's statistics were gathered when \(table) had \(analysed.groupedDigits) rows; it has "
                                           + "\(now.groupedDigits) now, so its plans weigh the table at the wrong size (ANALYZE gathers them again)"))
        }
        return found
    }
}

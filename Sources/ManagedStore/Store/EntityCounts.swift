import GRDB

/// Row counts per entity: its own rows and, as a fetch of it counts, its rows plus those of
/// every sub-entity, all read in the caller's one transaction. A table one entity owns is a
/// plain `COUNT(*)` (SQLite counts the cells of the table's smallest b-tree without decoding
/// a row). Where entities share a table, see `sharedTableCounts`.
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
                let perID = try sharedTableCounts(db, table: table, column: column,
                                                  ids: entities.compactMap(\.entityID))
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

    /// Rows per entity ID in a table entities share. Through an index that leads with the
    /// entity column (Core Data gives every such table one): the table's `COUNT(*)`, the
    /// range of each entity but the most numerous, and the rows no entity owns (NULL, and
    /// every value below, between or above the IDs: unknown numbers, fractions, text,
    /// blobs), each range found by a seek and usually empty; the most numerous entity gets
    /// the rest. Which one that is, a few rows spread over the table's keys tell; a wrong
    /// guess costs time, never a count. Without such an index, every row is grouped.
    ///
    /// Grouping visits each of the index's entries; on 10 million cars in two entities
    /// (7.5 M and 2.5 M) that took 0.42 s of `entities`' 0.7 s, and the ranges 0.14 s
    /// (Benchmarks/README.md, "`entities` by ranges").
    static func sharedTableCounts(_ db: Database, table: String, column: String, ids: [Int]) throws -> [Int: Int] {
        let quoted = SQL.identifier(table), entity = SQL.identifier(column)
        let ids = Array(Set(ids)).sorted()
        guard let first = ids.first, let last = ids.last,
              try indexLeads(db, table: table, column: column) else {
            return try groupedCounts(db, table: quoted, column: entity)
        }
        // Only a guess: a table the probes cannot read (a hand-edited one without `Z_PK`)
        // is still counted, the first ID taking the rest.
        let largest = (try? mostNumerous(db, quoted: quoted, column: entity, ids: ids)) ?? first
        let counted = ids.filter { $0 != largest }
        func count(_ condition: String) -> String { "(SELECT COUNT(*) FROM \(quoted) WHERE \(condition))" }
        var strays = [count("\(entity) IS NULL"), count("\(entity) < \(first)"), count("\(entity) > \(last)")]
        for (low, high) in zip(ids, ids.dropFirst()) {
            strays.append(count("\(entity) > \(low) AND \(entity) < \(high)"))
        }
        let sql = "SELECT (SELECT COUNT(*) FROM \(quoted)), " + strays.joined(separator: " + ")
            + counted.map { ", " + count("\(entity) = \($0)") }.joined()
        guard let row = try Row.fetchOne(db, sql: sql) else { return [:] }
        var perID: [Int: Int] = [:]
        var rest = (row.lenient(0) ?? 0) - (row.lenient(1) ?? 0)
        for (i, id) in counted.enumerated() {
            let n: Int = row.lenient(i + 2) ?? 0
            perID[id] = n
            rest -= n
        }
        perID[largest] = rest
        return perID
    }

    /// Whether an index of `table` (of all its rows) has `column` as its first column, so that
    /// a range of its values is a seek.
    static func indexLeads(_ db: Database, table: String, column: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pragma_index_list(?) AS l, pragma_index_info(l.name) AS i "
                          + "WHERE l.partial = 0 AND i.seqno = 0 AND i.name = ? COLLATE NOCASE)", arguments: [table, column]) ?? false
    }

    /// The entity ID most of 17 rows hold, taken at even steps across the table's keys
    /// (the first ID on a tie, or with no rows). The two ends are two subqueries: SQLite
    /// reads `min()` or `max()` off the b-tree's edge only when it is the query's one
    /// aggregate, and scans the whole table for both in one.
    static func mostNumerous(_ db: Database, quoted table: String, column: String, ids: [Int]) throws -> Int {
        let probes = 17
        guard let bounds = try Row.fetchOne(db, sql: "SELECT (SELECT min(Z_PK) FROM \(table)), (SELECT max(Z_PK) FROM \(table))"),
              let low: Int64 = bounds.lenient(0), let high: Int64 = bounds.lenient(1) else { return ids[0] }
        let span = Double(high) - Double(low)
        // One statement, run once per key. One statement of 17 subqueries holds a page in
        // as many windows of the map at once, and `entities` on a million people peaked at
        // 50-60 MB with it, against 34 MB this way (and without probes).
        let probe = try db.makeStatement(sql: "SELECT \(column) FROM \(table) WHERE Z_PK >= ? ORDER BY Z_PK LIMIT 1")
        var seen: [Int: Int] = [:]
        for i in 0..<probes {
            let key = Int64(Double(low) + span * Double(i) / Double(probes - 1))
            if let row = try Row.fetchOne(probe, arguments: [key]), let id: Int = row.lenient(0), ids.contains(id) {
                seen[id, default: 0] += 1
            }
        }
        return ids.max { (seen[$0] ?? 0) < (seen[$1] ?? 0) } ?? ids[0]
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

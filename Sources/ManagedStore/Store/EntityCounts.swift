import GRDB

/// Row counts per entity: its own rows and, as a fetch of it counts, its rows plus those of
/// every sub-entity. A table one entity owns is counted with a plain `COUNT(*)`: SQLite
/// counts the cells of the table's smallest b-tree without decoding a row. Where entities
/// share a table, `GROUP BY Z_ENT` would visit every row; with an index on `Z_ENT` (the
/// genuine stores among the fixtures have one on every such table) the counts come from ranges of that index instead, and
/// the most numerous entity's range is never walked (see `rangeCounts`).
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
                let ids = Set(entities.compactMap(\.entityID)).sorted()
                let perID = try rangeCounts(db, table: table, column: column, ids: ids)
                    ?? groupedCounts(db, table: quoted, column: column)
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

    /// Rows per entity ID through an index that starts with the entity column; nil without one.
    ///
    /// The whole table is counted first (SQLite counts the smallest index's cells), then the
    /// range of each entity but one, and every range that belongs to no entity (NULL, below
    /// the first ID, above the last, between two): the one left is what remains. Each count
    /// is exact. Which entity is left out is only a guess, the one most of 32 rows spread over
    /// the keys belong to, and a wrong guess costs time, not correctness.
    static func rangeCounts(_ db: Database, table: String, column: String, ids: [Int]) throws -> [Int: Int]? {
        guard let first = ids.first, let last = ids.last,
              try Bool.fetchOne(db, sql: """
                  SELECT 1 FROM pragma_index_list(?) AS l, pragma_index_info(l.name) AS i
                  WHERE l.partial = 0 AND i.seqno = 0 AND i.name = ? COLLATE NOCASE LIMIT 1
                  """, arguments: [table, column]) == true else { return nil }
        let quoted = SQL.identifier(table)
        func count(_ condition: String, _ arguments: StatementArguments = []) throws -> Int {
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted) WHERE \(condition)", arguments: arguments) ?? 0
        }
        let all = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted)") ?? 0

        var votes: [Int: Int] = [:]
        if let bounds = try Row.fetchOne(db, sql: "SELECT min(Z_PK), max(Z_PK) FROM \(quoted)"),
           let low: Int64 = bounds.lenient(0), let high: Int64 = bounds.lenient(1), high >= low {
            // Keys a hand-edited store spreads over the whole 64-bit range still take 32 steps.
            let (span, overflow) = high.subtractingReportingOverflow(low)
            let step = overflow ? Int.max / 32 : max(1, Int(span / 32))
            for key in stride(from: low, through: high, by: step) {
                let sampled = try Row.fetchOne(db, sql: "SELECT \(column) FROM \(quoted) WHERE Z_PK >= ? ORDER BY Z_PK LIMIT 1",
                                               arguments: [key])
                if let id: Int = sampled?.lenient(0) { votes[id, default: 0] += 1 }
            }
        }
        let left = ids.max { votes[$0] ?? 0 < votes[$1] ?? 0 } ?? first

        var perID: [Int: Int] = [:]
        var counted = 0
        for id in ids where id != left {
            let n = try count("\(column) = ?", [id])
            perID[id] = n
            counted += n
        }
        counted += try count("\(column) IS NULL") + count("\(column) < ?", [first]) + count("\(column) > ?", [last])
        for (a, b) in zip(ids, ids.dropFirst()) {
            counted += try count("\(column) > ? AND \(column) < ?", [a, b])
        }
        perID[left] = max(0, all - counted)
        return perID
    }
}

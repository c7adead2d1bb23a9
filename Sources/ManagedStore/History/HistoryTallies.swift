import GRDB

/// Counts over history that answer questions about it without reading each change: what
/// was committed after a token (by entity and author), and how many changes history holds
/// for each object of an entity.
extension PersistentHistory {
    public struct Tally: Sendable, Equatable {
        public var entityName: String
        public var author: String?
        public var transactions: Int64
        public var changes: Int64
    }

    /// Changes after `token` (all of history when nil), grouped by entity and by the
    /// transaction's author. The token is checked as a fetch after it is: one whose
    /// successors were purged throws `HistoryError.tokenExpired`.
    public func tallies(after token: Int64?, _ db: Database) throws -> [Tally] {
        var query = HistoryQuery()
        query.after = token
        try check(query, db)
        let sql = "SELECT c.ZENTITY, \(interned("AUTHOR", "t")) AS author, count(DISTINCT c.ZTRANSACTIONID), count(*) "
            + "FROM ACHANGE c LEFT JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID"
            + (token == nil ? "" : " WHERE c.ZTRANSACTIONID > ?") + " GROUP BY 1, 2 ORDER BY 4 DESC, 1, 2"
        return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(token.map { [$0] } ?? [])).map { row in
            let number: Int64 = row.lenient(0) ?? 0
            let name = Int(exactly: number).flatMap { store.mapping.entity(withID: $0)?.name } ?? "#\(number)"
            return Tally(entityName: name, author: row.lenient(1), transactions: row.lenient(2) ?? 0, changes: row.lenient(3) ?? 0)
        }
    }

    /// Objects of one entity (its own `Z_ENT`) whose row was saved more often than history
    /// records. Core Data adds 1 to a row's `Z_OPT` at each save that changes it and records
    /// one change per object and transaction, so an object whose insert history still holds
    /// has `Z_OPT` = 1 + its recorded updates; more means saves history never saw. Objects
    /// whose insert was purged cannot be judged, and are counted apart.
    public func unrecordedSaves(entityID: Int, table: String, versionColumn: String, _ db: Database)
        throws -> (objects: Int64, examples: [Int64], unjudged: Int64) {
        let tally = "SELECT c.ZENTITYPK AS pk, sum(c.ZCHANGETYPE = 1) AS updates, max(c.ZCHANGETYPE = 0) AS inserted, "
            + "max(c.ZCHANGETYPE = 2) AS deleted FROM ACHANGE c WHERE c.ZENTITY = ? GROUP BY c.ZENTITYPK"
        let sql = "SELECT x.Z_PK FROM \(SQL.identifier(table)) x JOIN (\(tally)) h ON h.pk = x.Z_PK "
            + "WHERE x.Z_ENT = ? AND h.inserted AND NOT h.deleted AND x.\(SQL.identifier(versionColumn)) > 1 + h.updates ORDER BY x.Z_PK"
        var count: Int64 = 0
        var examples: [Int64] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: [entityID, entityID])
        while let row = try rows.next() {
            try Cancellation.check()
            count += 1
            if examples.count < 5, let pk: Int64 = row.lenient(0) { examples.append(pk) }
        }
        let unjudged = try Int64.fetchOne(db, sql: "SELECT CAST(total(h.pk IS NULL OR NOT h.inserted) AS INTEGER) FROM \(SQL.identifier(table)) x "
                                          + "LEFT JOIN (\(tally)) h ON h.pk = x.Z_PK WHERE x.Z_ENT = ?", arguments: [entityID, entityID]) ?? 0
        return (count, examples, unjudged)
    }
}

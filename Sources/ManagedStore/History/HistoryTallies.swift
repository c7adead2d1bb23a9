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
        // Changes grouped by transaction first: the author is then looked up once a
        // transaction, not once a change.
        let grouped = "SELECT c.ZTRANSACTIONID AS tx, c.ZENTITY AS entity, count(*) AS n FROM ACHANGE c"
            + (token == nil ? "" : " WHERE c.ZTRANSACTIONID > ?") + " GROUP BY 1, 2"
        let sql = "SELECT g.entity, \(interned("AUTHOR", "t")) AS author, count(*), sum(g.n) "
            + "FROM (\(grouped)) g LEFT JOIN ATRANSACTION t ON t.Z_PK = g.tx GROUP BY 1, 2 ORDER BY 4 DESC, 1, 2"
        return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(token.map { [$0] } ?? [])).map { row in
            let number: Int64 = row.lenient(0) ?? 0
            let name = Int(exactly: number).flatMap { store.mapping.entity(withID: $0)?.name } ?? "#\(number)"
            return Tally(entityName: name, author: row.lenient(1), transactions: row.lenient(2) ?? 0, changes: row.lenient(3) ?? 0)
        }
    }

    /// The entity numbers history holds changes of.
    public func changedEntities(_ db: Database) throws -> Set<Int64> {
        Set(try Int64.fetchAll(db, sql: "SELECT DISTINCT ZENTITY FROM ACHANGE WHERE ZENTITY IS NOT NULL"))
    }

    /// Objects of one entity (its own `Z_ENT`) whose row was saved more often than history
    /// records. Core Data adds 1 to a row's `Z_OPT` at each save that changes it and records
    /// one change per object and transaction, so an object whose insert history still holds
    /// has `Z_OPT` = 1 + its recorded updates; more means saves history never saw. Objects
    /// whose insert was purged (or predates history) cannot be judged, and are counted apart.
    /// One pass over the entity's changes; the examples cost a second only when there are some.
    public func unrecordedSaves(entityID: Int, table: String, versionColumn: String, _ db: Database)
        throws -> (objects: Int64, examples: [Int64], unjudged: Int64) {
        let tally = "SELECT c.ZENTITYPK AS pk, sum(c.ZCHANGETYPE = 1) AS updates, max(c.ZCHANGETYPE = 0) AS inserted, "
            + "max(c.ZCHANGETYPE = 2) AS deleted FROM ACHANGE c WHERE c.ZENTITY = ? GROUP BY c.ZENTITYPK"
        let judged = "FROM (\(tally)) h JOIN \(SQL.identifier(table)) x ON x.Z_PK = h.pk AND x.Z_ENT = ? WHERE h.inserted AND NOT h.deleted"
        let ahead = "x.\(SQL.identifier(versionColumn)) > 1 + h.updates"
        let row = try Row.fetchOne(db, sql: "SELECT count(*), CAST(total(\(ahead)) AS INTEGER) " + judged, arguments: [entityID, entityID])
        let judgedCount: Int64 = row?.lenient(0) ?? 0
        let count: Int64 = row?.lenient(1) ?? 0
        let rows = try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(table)) WHERE Z_ENT = ?", arguments: [entityID]) ?? 0
        let examples = count == 0 ? [] : try Int64.fetchAll(db, sql: "SELECT x.Z_PK " + judged + " AND \(ahead) ORDER BY x.Z_PK LIMIT 5",
                                                           arguments: [entityID, entityID])
        return (count, examples, max(0, rows - judgedCount))
    }
}

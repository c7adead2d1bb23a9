import GRDB

/// `NSPersistentHistoryChangeRequest.deleteHistory(before:)`: the transactions up to a
/// token (the token names the last transaction a reader processed, so a fetch after it
/// still works) or older than a date, their changes, and the interned strings no remaining
/// transaction names, deleted in one SQLite transaction. An app or CloudKit exporter whose
/// token is older than what is left gets `NSPersistentHistoryTokenExpiredError` next time.
public struct HistoryPurge {
    public enum Boundary: Sendable, Equatable {
        case token(Int64)
        /// Reference-date seconds: transactions with an earlier timestamp go.
        case date(Double)
    }

    public struct Result: Sendable, Equatable {
        public var transactions: Int64
        public var changes: Int64
        public var strings: Int64
        /// The first transaction kept afterwards (nil when none is left).
        public var oldestKept: Int64?
    }

    let history: PersistentHistory

    public init(store: PersistentStore) throws {
        history = try PersistentHistory(store: store)
    }

    private var interned: [String] {
        ["ZAUTHORTS", "ZBUNDLEIDTS", "ZCONTEXTNAMETS", "ZPROCESSIDTS"].filter { history.transactionTable.hasColumn($0) }
    }

    private func condition(_ boundary: Boundary) -> (String, [DatabaseValue]) {
        switch boundary {
        case .token(let token): return ("Z_PK <= ?", [token.databaseValue])
        case .date(let date): return ("ZTIMESTAMP < ?", [date.databaseValue])
        }
    }

    /// Strings no transaction outside the purged ones names.
    private func orphanStrings(kept: String) -> String? {
        guard let strings = history.stringTable, !interned.isEmpty else { return nil }
        let used = interned.map { "SELECT \($0) FROM ATRANSACTION WHERE \($0) IS NOT NULL AND NOT (\(kept))" }.joined(separator: " UNION ")
        return "FROM \(SQL.identifier(strings.name)) WHERE Z_PK NOT IN (\(used))"
    }

    private func check(_ boundary: Boundary, _ db: Database) throws {
        guard case .token(let token) = boundary else { return }
        let summary = try history.summary(db)
        let kept = summary.firstToken.flatMap { first in summary.lastToken.map { first...$0 } }
        if token < 0 || token > (summary.lastToken ?? 0) { throw HistoryError.unknownToken(token, kept: kept) }
    }

    /// What a purge would delete, without deleting it.
    public func preview(_ boundary: Boundary, _ db: Database) throws -> Result {
        try check(boundary, db)
        let (purged, arguments) = condition(boundary)
        let transactions = try Int64.fetchOne(db, sql: "SELECT count(*) FROM ATRANSACTION WHERE \(purged)", arguments: StatementArguments(arguments)) ?? 0
        let changes = try Int64.fetchOne(db, sql: "SELECT count(*) FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(purged))",
                                         arguments: StatementArguments(arguments)) ?? 0
        let strings = try orphanStrings(kept: purged).map {
            try Int64.fetchOne(db, sql: "SELECT count(*) " + $0, arguments: StatementArguments(arguments + arguments.repeated(interned.count - 1))) ?? 0
        } ?? 0
        let oldest = try Int64.fetchOne(db, sql: "SELECT min(Z_PK) FROM ATRANSACTION WHERE NOT (\(purged))", arguments: StatementArguments(arguments))
        return Result(transactions: transactions, changes: changes, strings: strings, oldestKept: oldest)
    }

    /// Deletes, in the writer's one transaction, and says what went.
    func purge(_ boundary: Boundary, _ db: Database) throws -> Result {
        let result = try preview(boundary, db)
        let (purged, arguments) = condition(boundary)
        // Strings first, while the transactions that name them are still there to ask.
        if let strings = orphanStrings(kept: purged) {
            try db.execute(sql: "DELETE " + strings, arguments: StatementArguments(arguments + arguments.repeated(interned.count - 1)))
        }
        try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(purged))",
                       arguments: StatementArguments(arguments))
        try db.execute(sql: "DELETE FROM ATRANSACTION WHERE \(purged)", arguments: StatementArguments(arguments))
        return result
    }
}

private extension Array {
    func repeated(_ times: Int) -> [Element] { times <= 0 ? [] : Array((0..<times).map { _ in self }.joined()) }
}

extension Coordinator {
    /// Purges history as `deleteHistory(before:)` does; refused while a context is pinned
    /// to a query generation, and on a store opened read-only.
    public func purgeHistory(before boundary: HistoryPurge.Boundary) throws -> HistoryPurge.Result {
        let purge = try HistoryPurge(store: store)
        let pinned = liveGenerations.reduce(0) { $0 + contexts(pinnedTo: $1).count }
        if pinned > 0 { throw HistoryError.pinnedGeneration(count: pinned) }
        return try write { try purge.purge(boundary, $0) }
    }
}

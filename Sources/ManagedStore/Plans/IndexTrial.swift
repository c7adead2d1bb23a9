import Foundation
import GRDB

/// `explain --plan --try`: the fetch's statement timed on a temporary copy of the store
/// (SQLite's backup API, in one read of the store), before and after the advised index is
/// created in the copy. The store is only read; the copy is removed after.
public enum IndexTrial {
    /// Seconds the statement took, best of three, before and after.
    public static func measure(_ plan: FetchPlan, advice: IndexAdvice, store: PersistentStore) throws -> (before: Double, after: Double) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("index-trial-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = try DatabaseQueue(path: folder.appendingPathComponent("copy.sqlite").path)
        defer { try? copy.close() }
        try store.reader.backup(to: copy)
        let time = { () throws -> Double in
            try copy.inDatabase { db in
                PredicateFunctions.register(db)
                var best = Double.infinity
                for _ in 0..<3 {
                    try Cancellation.check()
                    let started = ProcessInfo.processInfo.systemUptime
                    let cursor = try Row.fetchCursor(db, sql: plan.statement.sql, arguments: StatementArguments(plan.statement.arguments))
                    while try cursor.next() != nil {}
                    best = min(best, ProcessInfo.processInfo.systemUptime - started)
                }
                return best
            }
        }
        let before = try time()
        try copy.inDatabase { db in
            for index in advice.indexes { try db.execute(sql: index.createIndex) }
        }
        let after = try time()
        return (before, after)
    }
}

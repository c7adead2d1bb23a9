import Foundation
import GRDB
import GRDBSQLite

/// How durable SQLite makes each commit on a connection that writes a store.
///
/// Core Data sets no `synchronous` pragma of its own: it applies only the pragmas a store's
/// options name (`NSSQLitePragmasOption`), with `journal_mode=wal` by default, so an app's
/// store runs at the level its SQLite was built with, FULL (2) in Apple's builds (a pragma
/// dump on iOS: `synchronous: 2`, `checkpoint_fullfsync: 1`). Here every writing connection
/// says FULL itself, whatever the system SQLite's default: in WAL mode the `-wal` is synced
/// at every commit, so a commit is durable before cdinspect says "saved"; in rollback mode
/// the journal and the file are synced as SQLite's FULL does. It is never lowered for
/// speed. On Apple platforms `fullfsync` and `checkpoint_fullfsync` make those syncs
/// `F_FULLFSYNC`, which a plain `fsync` there is not (Apple's fsync(2)). See
/// docs/crash-safety.md.
enum SQLiteDurability {
    static var statements: String {
        #if canImport(Darwin)
        return "PRAGMA synchronous = FULL; PRAGMA fullfsync = 1; PRAGMA checkpoint_fullfsync = 1"
        #else
        return "PRAGMA synchronous = FULL"
        #endif
    }

    /// Sets them on `connection`.
    static func apply(_ connection: OpaquePointer) throws {
        guard sqlite3_exec(connection, statements, nil, nil, nil) == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(connection)),
                                message: String(cString: sqlite3_errmsg(connection)))
        }
    }

    /// A GRDB configuration for a new file this process writes whole (a snapshot's copy, a
    /// store being created): the same durability.
    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            if let connection = db.sqliteConnection { try apply(connection) }
        }
        return configuration
    }
}

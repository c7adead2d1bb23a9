import Foundation
import GRDB
import GRDBSQLite

/// Opens SQLite connections on a store the way an inspector must: read-only by default
/// (`SQLITE_OPEN_READONLY`, the flag behind `mode=ro`; never `immutable=1`, which would
/// ignore the `-wal`), without touching the journal mode, and with errors translated into
/// `StoreError`s that name the file.
public enum StoreConnection {
    /// `holdsTransaction` is for a query generation's connection, whose read transaction
    /// stays open between calls.
    public static func open(_ file: StoreFile, readonly: Bool = true, holdsTransaction: Bool = false,
                            log: SQLDebugLog? = nil) throws -> DatabaseQueue {
        WindowedMappingVFS.install()
        if let image = file.image, !readonly { throw StoreError.pastGenerationIsReadOnly(token: image.token) }
        if readonly { try file.checkSharedMemory() }
        if let log, log.shows(1) { log.annotation("Connecting to sqlite database file at \"\(file.path)\"") }
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.allowsUnsafeTransactions = holdsTransaction
        configuration.foreignKeysEnabled = false
        configuration.busyMode = .timeout(file.busyTimeout)
        configuration.label = "cdinspect"
        configuration.prepareDatabase { db in
            // Before the debug log is attached: Core Data's log shows no such pragma, since
            // Core Data runs at its SQLite's default, which this says out loud.
            if !readonly, let connection = db.sqliteConnection { try SQLiteDurability.apply(connection) }
            if let log { SQLTrace.attach(log, to: db.sqliteConnection!) }
            PredicateFunctions.register(db)
            if !readonly { TriggerFunctions.register(db) }
            // Reading through a memory map saves a system call and a copy per page on large
            // scans. The whole file may be mapped (SQLite caps the size) because
            // `WindowedMappingVFS` gives back the pages a scan has left behind (on Linux; see
            // its `givesPagesBack`). It changes nothing on disk, and writes still go through
            // SQLite's usual path.
            // A connection that writes reads through SQLite's own cache instead: inside a
            // write transaction SQLite takes only read-only cursors' pages from the map, but
            // once a map exists the platform VFS copies every other read out of it, so
            // those pages would stay resident with nothing to give them back (a batch
            // update that checks its values first grew to the table's size, 206 MB).
            // sqlite3_exec, not GRDB's `execute(sql:)`, whose first use (it splits the text
            // into statements and checks their arguments) costs more than the pragma.
            if let connection = db.sqliteConnection,
               sqlite3_exec(connection, "PRAGMA mmap_size = \(readonly ? 1 << 40 : 0)", nil, nil, nil) != SQLITE_OK {
                throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_extended_errcode(connection)),
                                    message: String(cString: sqlite3_errmsg(connection)))
            }
        }
        do {
            let queue = try DatabaseQueue(path: file.openName, configuration: configuration)
            Cancellation.register(queue)
            // Reading the schema proves the file is a usable database; SQLite opens lazily.
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            // A connection that writes has the -wal now, which SQLite may have just made: it syncs
            // the folder after making one but ignores a failure (unixSync's directory sync), and a
            // save into a -wal whose name was never made durable is lost with the file after a
            // power cut. So the folder is synced here, before the first commit, and checked.
            if !readonly {
                let parent = (file.path as NSString).deletingLastPathComponent
                let folder = parent.isEmpty ? "." : parent
                do {
                    try Disk.system.syncFolder(folder)
                } catch let error as DiskError {
                    Cancellation.unregister(queue)
                    try? queue.close()
                    throw StoreError.folderNotSynced(path: folder, reason: error.reason)
                }
            }
            return queue
        } catch {
            throw translate(error, file: file)
        }
    }

    /// Closes a connection `open` made, once no Ctrl-C can reach it (`Cancellation.unregister`).
    public static func close(_ queue: DatabaseQueue) throws {
        Cancellation.unregister(queue)
        try queue.close()
    }

    /// Maps SQLite's result codes to the errors a user can act on.
    public static func translate(_ error: Error, file: StoreFile) -> Error {
        guard let dbError = error as? DatabaseError else { return error }
        if let image = file.image, let why = image.problem { return StoreError.generationGone(token: image.token, why: why) }
        switch dbError.resultCode {
        case .SQLITE_INTERRUPT:
            return StoreError.interrupted
        case .SQLITE_NOTADB:
            return StoreError.notSQLite(path: file.path)
        case .SQLITE_CORRUPT:
            return StoreError.corrupt(path: file.path, detail: dbError.message ?? "database disk image is malformed")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError.locked(path: file.path)
        case .SQLITE_PERM, .SQLITE_AUTH:
            return StoreError.permissionDenied(path: file.path)
        case .SQLITE_CANTOPEN where file.journalMode == .wal:
            return StoreError.sharedMemoryUnavailable(path: file.path)
        case .SQLITE_READONLY where file.journalMode == .wal && dbError.extendedResultCode.rawValue == 1288: // READONLY_CANTINIT
            return StoreError.sharedMemoryUnavailable(path: file.path)
        case .SQLITE_READONLY:
            return StoreError.readOnly(path: file.path)
        default:
            return StoreError.sqlite(dbError.message ?? "\(dbError)")
        }
    }
}

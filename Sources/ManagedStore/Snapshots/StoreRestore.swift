import Foundation
import GRDB

/// Puts a snapshot's content back into its store, all-or-nothing across the rows and every
/// folder beside them (docs/crash-safety.md):
///
/// 1. the snapshot's files the store's folders lack are added first, each copied under a
///    temporary name, synced and renamed (external data files are named by UUIDs, so the
///    same name holds the same bytes), and their folders synced;
/// 2. the rows go back in one write: SQLite's backup API from the snapshot into the store,
///    which replaces every page in one transaction through the store's own journal (its
///    `-wal` stays the store's);
/// 3. only then are the files the snapshot does not have removed (and a file whose bytes
///    differ under the same name replaced, by rename).
///
/// A kill before step 2 commits leaves the rows as before and every file they name; after
/// it, the rows as restored and every file they name. What can be left over is files no row
/// names, which the next write sweeps. What it replaces is first kept as a snapshot.
public enum StoreRestore {
    /// Restores `snapshot` into `store`, after keeping the store as it is as the snapshot
    /// `keep` (named `keepName`). Refused while another process has the store open, unless
    /// `force`, when the snapshot's model version hashes are not the store's, and when SQLite's
    /// `quick_check` finds the snapshot's copy damaged.
    public static func restore(_ snapshot: StoreSnapshot, into store: PersistentStore, keepName: String, keep: URL,
                               force: Bool, disk: Disk = .system) throws -> StoreSnapshot {
        if store.options.readonly { throw StoreError.readOnly(path: store.path) }
        let users = ProcessUse.others(using: [store.path, store.file.walPath, store.file.sharedMemoryPath])
        if !users.isEmpty && !force { throw SnapshotError.storeInUse(path: store.path, users: users) }
        let differing = differingEntities(snapshot.manifest.modelVersionHashes,
                                          (store.metadata?.versionHashes ?? [:]).mapValues { Data($0).base64EncodedString() })
        if !differing.isEmpty { throw SnapshotError.modelDiffers(entities: differing) }
        // A damaged page would be copied into the store as it is: checked before anything changes.
        let found = try StoreSnapshot.quickCheck(snapshot.storePath)
        guard found == "ok" else { throw SnapshotError.damaged(path: snapshot.storePath, found: found) }

        let kept = try StoreSnapshot.take(of: store, name: keepName, into: keep, disk: disk)
        var folders = FolderRestore(snapshotFolder: snapshot.folder, storePath: store.path, disk: disk)
        var rowsCopied = false
        do {
            try folders.addMissing()
            try folders.stageReplacements()
            rowsCopied = true
            try copyRows(from: snapshot.storePath, into: store)
        } catch {
            // A disk that failed while SQLite wrote or synced the rows' commit may have left it
            // whole in the -wal, where the next open finds it: the files are then settled as
            // the restored rows name them, and the error says the rows are back.
            if rowsCopied, filesHoldRows(of: snapshot.storePath, store: store) {
                try? folders.removeAndReplace()
                throw SnapshotError.restoredUnsure(reason: "\(error)")
            }
            // Nothing was restored: the files added go, and so does the snapshot kept of a
            // store that did not change.
            folders.undoAdded()
            disk.removeTree(kept.folder.path)
            if let error = error as? DiskError { throw SnapshotError.cannotWrite(path: error.path, reason: error.reason) }
            throw error
        }
        try folders.removeAndReplace()
        return kept
    }

    /// Whether the store's files hold the snapshot's rows, as the next open of the store will
    /// read them: from the newest commit the `-wal`'s own frames hold (`StoreTimeline`), not
    /// from the wal-index, which a commit whose sync failed leaves without it. Compared table
    /// by table (`EXCEPT` both ways) with the snapshot's copy.
    static func filesHoldRows(of snapshotPath: String, store: PersistentStore) -> Bool {
        guard let timeline = try? StoreTimeline.read(path: store.path),
              let file = try? store.file.reading(generation: timeline.newestToken, in: timeline),
              let queue = try? StoreConnection.open(file, readonly: true) else { return false }
        defer { try? StoreConnection.close(queue) }
        return (try? queue.inDatabase { db -> Bool in
            try db.execute(sql: "ATTACH DATABASE ? AS snapshot", arguments: [snapshotPath])
            let list = "SELECT name FROM %@.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
            let tables = try String.fetchAll(db, sql: list.replacingOccurrences(of: "%@", with: "main"))
            guard tables == (try String.fetchAll(db, sql: list.replacingOccurrences(of: "%@", with: "snapshot"))) else { return false }
            for table in tables {
                let name = SQL.identifier(table)
                for (a, b) in [("main", "snapshot"), ("snapshot", "main")] {
                    let extra = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT * FROM \(a).\(name) EXCEPT SELECT * FROM \(b).\(name))") ?? 1
                    if extra > 0 { return false }
                }
            }
            return true
        }) ?? false
    }

    /// The entities whose version hash is not the same on both sides, or that one side lacks.
    static func differingEntities(_ a: [String: String], _ b: [String: String]) -> [String] {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
    }

    static func copyRows(from snapshotPath: String, into store: PersistentStore) throws {
        let source = try StoreConnection.open(try StoreFile(path: snapshotPath), readonly: true)
        defer { try? StoreConnection.close(source) }
        let target = try StoreConnection.open(store.file, readonly: false)
        defer { try? StoreConnection.close(target) }
        do {
            try source.read { snapshot in
                try target.writeWithoutTransaction { db in
                    try snapshot.backup(to: db)
                    // The new content into the main file, so the -wal is left empty. The rows
                    // are restored once the backup commits: a checkpoint another reader holds
                    // back is no failure.
                    _ = try? Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                }
            }
        } catch {
            throw StoreConnection.translate(error, file: store.file)
        }
    }
}

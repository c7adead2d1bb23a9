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
        do {
            try folders.addMissing()
            try copyRows(from: snapshot.storePath, into: store)
        } catch {
            // Nothing was restored: the files added go, and so does the snapshot kept of a
            // store that did not change.
            folders.undoAdded()
            disk.removeTree(kept.folder.path)
            if let error = error as? DiskError { throw SnapshotError.cannotWrite(path: error.path, reason: error.reason) }
            throw error
        }
        folders.removeAndReplace()
        return kept
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

import Foundation
import GRDB

/// Puts a snapshot's content back into its store, as one write: SQLite's backup API from
/// the snapshot into the store, which replaces every page in one transaction through the
/// store's own journal (its `-wal` stays the store's), then its external data and CloudKit
/// asset folders, each swapped in whole. What it replaces is first kept as a snapshot.
public enum StoreRestore {
    /// Restores `snapshot` into `store`, after keeping the store as it is as the snapshot
    /// `keep` (named `keepName`). Refused while another process has the store open, unless
    /// `force`, when the snapshot's model version hashes are not the store's, and when SQLite's
    /// `quick_check` finds the snapshot's copy damaged.
    public static func restore(_ snapshot: StoreSnapshot, into store: PersistentStore, keepName: String, keep: URL,
                               force: Bool) throws -> StoreSnapshot {
        if store.options.readonly { throw StoreError.readOnly(path: store.path) }
        let users = ProcessUse.others(using: [store.path, store.file.walPath, store.file.sharedMemoryPath])
        if !users.isEmpty && !force { throw SnapshotError.storeInUse(path: store.path, users: users) }
        let differing = differingEntities(snapshot.manifest.modelVersionHashes,
                                          (store.metadata?.versionHashes ?? [:]).mapValues { Data($0).base64EncodedString() })
        if !differing.isEmpty { throw SnapshotError.modelDiffers(entities: differing) }
        // A damaged page would be copied into the store as it is: checked before anything changes.
        let found = try StoreSnapshot.quickCheck(snapshot.storePath)
        guard found == "ok" else { throw SnapshotError.damaged(path: snapshot.storePath, found: found) }

        let kept = try StoreSnapshot.take(of: store, name: keepName, into: keep)
        try copyRows(from: snapshot.storePath, into: store)
        try swapFolders(from: snapshot.folder, into: store)
        return kept
    }

    /// The entities whose version hash is not the same on both sides, or that one side lacks.
    static func differingEntities(_ a: [String: String], _ b: [String: String]) -> [String] {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
    }

    private static func copyRows(from snapshotPath: String, into store: PersistentStore) throws {
        let source = try StoreConnection.open(try StoreFile(path: snapshotPath), readonly: true)
        defer { try? source.close() }
        let target = try StoreConnection.open(store.file, readonly: false)
        defer { try? target.close() }
        do {
            try source.read { snapshot in
                try target.writeWithoutTransaction { db in
                    try snapshot.backup(to: db)
                    // The new content into the main file, so the -wal is left empty.
                    _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                }
            }
        } catch {
            throw StoreConnection.translate(error, file: store.file)
        }
    }

    /// Each companion folder the snapshot or the store has becomes the snapshot's: copied
    /// in beside the store under a hidden name, then moved over the store's.
    private static func swapFolders(from snapshotFolder: URL, into store: PersistentStore) throws {
        let fm = FileManager.default
        let companions = StoreCompanions(storePath: store.path)
        let storeFolder = URL(fileURLWithPath: store.path).deletingLastPathComponent()
        let snapshotCompanions = StoreCompanions(storePath: snapshotFolder.appendingPathComponent(URL(fileURLWithPath: store.path).lastPathComponent).path)
        for relative in Set(companions.existingFolders + snapshotCompanions.existingFolders).sorted() {
            let target = storeFolder.appendingPathComponent(relative)
            let incoming = snapshotFolder.appendingPathComponent(relative)
            let beside = target.deletingLastPathComponent()
            let new = beside.appendingPathComponent(".\(target.lastPathComponent).incoming-\(getpid())")
            let old = beside.appendingPathComponent(".\(target.lastPathComponent).replaced-\(getpid())")
            try? fm.removeItem(at: new)
            try? fm.removeItem(at: old)
            if fm.fileExists(atPath: incoming.path) {
                try fm.createDirectory(at: beside, withIntermediateDirectories: true)
                try fm.copyItem(at: incoming, to: new)
            }
            if fm.fileExists(atPath: target.path) { try fm.moveItem(at: target, to: old) }
            if fm.fileExists(atPath: new.path) { try fm.moveItem(at: new, to: target) }
            try? fm.removeItem(at: old)
        }
    }
}

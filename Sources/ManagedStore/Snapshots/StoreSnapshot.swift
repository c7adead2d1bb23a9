import Foundation
import GRDB

/// A consistent copy of a store, taken while an app may be writing to it: its rows through
/// SQLite's backup API inside one read transaction (never a copy of the files, which would
/// tear a store whose `-wal` is being written), its external data and CloudKit asset
/// folders, and a `manifest.json`. The copy is a plain store in rollback mode, one file that
/// every command opens; its folders keep the names they have beside the store.
public struct StoreSnapshot: Sendable {
    public let folder: URL
    public let manifest: SnapshotManifest

    public var name: String { manifest.name }
    /// The copy of the store file.
    public var storePath: String { folder.appendingPathComponent(manifest.storeFile).path }

    /// The snapshot in `folder`.
    public init(folder: URL) throws {
        self.folder = folder
        manifest = try SnapshotManifest.read(in: folder)
        guard FileManager.default.fileExists(atPath: storePath) else { throw SnapshotError.storeFileMissing(path: storePath) }
    }

    /// A name a snapshot can have: one plain folder name.
    public static func checkName(_ name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, name.count <= 100, !name.hasPrefix("."), name.allSatisfy(allowed.contains) else {
            throw SnapshotError.badName(name)
        }
    }

    /// The default name: the time, to the second, in UTC (`2026-11-27T20-31-05Z`).
    public static func defaultName(at date: Date = Date()) -> String {
        timestamp(date).replacingOccurrences(of: ":", with: "-")
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// The folder of a store's snapshot under a library root: `ROOT/STORE-UUID/NAME`.
    public static func folder(root: URL, storeUUID: String, name: String) -> URL {
        root.appendingPathComponent(storeUUID, isDirectory: true).appendingPathComponent(name, isDirectory: true)
    }

    /// The snapshots of the store with `storeUUID` under a library root, oldest first.
    public static func all(root: URL, storeUUID: String) -> [StoreSnapshot] {
        let shelf = root.appendingPathComponent(storeUUID, isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: shelf.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }
            .compactMap { try? StoreSnapshot(folder: shelf.appendingPathComponent($0, isDirectory: true)) }
            .sorted { ($0.manifest.time, $0.name) < ($1.manifest.time, $1.name) }
    }

    /// Takes a snapshot of `store` named `name` into `folder`, which must be new or empty.
    /// It is complete or absent: made in a hidden folder beside `folder`, every file synced,
    /// the manifest written last (a temporary name, synced, renamed), and only then moved into
    /// place and the move synced. An interrupted snapshot leaves nothing that looks like one
    /// (`all` lists no hidden folder), and its remains are cleared by the next snapshot of
    /// the store. `check` runs SQLite's `quick_check` on the copy and records what it found;
    /// otherwise the manifest says the check was not run (the copy comes from the backup API
    /// in one read transaction, so it is as sound as the store, and `restore` checks a
    /// snapshot before it puts it back).
    @discardableResult
    public static func take(of store: PersistentStore, name: String, into folder: URL, check: Bool = false,
                            at date: Date = Date(), disk: Disk = .system) throws -> StoreSnapshot {
        try checkName(name)
        let fm = FileManager.default
        if let contents = try? fm.contentsOfDirectory(atPath: folder.path), !contents.isEmpty {
            throw SnapshotError.targetOccupied(path: folder.path)
        }
        let parent = folder.deletingLastPathComponent()
        try disk.makeFolders(parent.path)
        // What killed snapshots of this store left: hidden `.NAME.partial-PID` folders.
        disk.clearRemains(in: parent, prefix: ".", marker: ".partial-")
        let partial = parent.appendingPathComponent(".\(folder.lastPathComponent).partial-\(getpid())", isDirectory: true)
        disk.removeTree(partial.path)
        try fm.createDirectory(at: partial, withIntermediateDirectories: true)
        do {
            let storeFile = URL(fileURLWithPath: store.path).lastPathComponent
            let copy = partial.appendingPathComponent(storeFile).path
            var past = 0
            let counts = try copyRows(of: store, to: copy) { past = try PastFiles.keep(store, in: partial, disk: disk) }
            try disk.sync(copy)
            let found = check ? try quickCheck(copy) : SnapshotManifest.notChecked
            let companions = StoreCompanions(storePath: store.path)
            var copied: [String] = []
            for relative in companions.existingFolders {
                let target = partial.appendingPathComponent(relative)
                try disk.makeFolders(target.deletingLastPathComponent().path)
                try disk.copyFolder(URL(fileURLWithPath: store.path).deletingLastPathComponent().appendingPathComponent(relative).path,
                                    to: target.path)
                copied.append(relative)
            }
            let manifest = SnapshotManifest(
                name: name, source: URL(fileURLWithPath: store.path).standardizedFileURL.path, storeFile: storeFile,
                storeUUID: store.uuid, time: timestamp(date),
                modelVersionHashes: (store.metadata?.versionHashes ?? [:]).mapValues { Data($0).base64EncodedString() },
                entityCounts: counts, check: found, journalMode: store.file.journalMode.rawValue,
                externalDataFiles: copied.contains(companions.externalDataName) ? companions.externalDataFiles.count : 0,
                cloudKitAssetFolders: copied.filter { $0 != companions.externalDataName }, pastGenerations: past)
            // The manifest last: a folder without one is no snapshot.
            let manifestPath = partial.appendingPathComponent(SnapshotManifest.fileName).path
            try disk.create(manifestPath + ".partial", bytes: Array(try manifest.encoded()))
            try disk.sync(manifestPath + ".partial")
            try disk.rename(manifestPath + ".partial", to: manifestPath)
            try disk.syncFolder(partial.path)
            if fm.fileExists(atPath: folder.path) { try fm.removeItem(at: folder) }
            try disk.rename(partial.path, to: folder.path)
            do {
                try disk.syncFolder(parent.path)
            } catch {
                // Named but not durably: no snapshot a power cut could take back is listed.
                disk.removeTree(folder.path)
                throw error
            }
            return try StoreSnapshot(folder: folder)
        } catch {
            disk.removeTree(partial.path)
            if let error = error as? DiskError { throw SnapshotError.cannotWrite(path: error.path, reason: error.reason) }
            throw error
        }
    }

    /// Copies the store's pages into a new file at `path`, and counts its objects, in one
    /// read transaction: the copy and the counts are of the same moment. The copy is made one
    /// self-contained file (rollback journal mode, so no `-wal` goes with it).
    /// `alongside` runs in the same read transaction, after the copy (`PastFiles`).
    private static func copyRows(of store: PersistentStore, to path: String, alongside: () throws -> Void = {}) throws -> [String: Int] {
        let destination = try DatabaseQueue(path: path, configuration: SQLiteDurability.configuration())
        defer { try? destination.close() }
        do {
            let counts = try store.reader.read { db in
                let counts = store.schema.isCoreDataStore ? try EntityCounts.read(store, db).own : [:]
                try destination.writeWithoutTransaction { copy in
                    try db.backup(to: copy, pagesPerStep: 4096) { _ in try Cancellation.check() }
                }
                try alongside()
                return counts
            }
            try destination.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
            return counts
        } catch {
            throw StoreConnection.translate(error, file: store.file)
        }
    }

    /// SQLite's `quick_check` of the store file at `path`, opened read-only: "ok", or what it
    /// found, one problem after another. A file SQLite cannot open as a database at all is a
    /// finding too, not an error: it is what a damaged snapshot looks like.
    public static func quickCheck(_ path: String) throws -> String {
        var configuration = Configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(path: path, configuration: configuration) } catch let error as DatabaseError {
            return error.message ?? "\(error)"
        }
        defer { try? queue.close() }
        do {
            return try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check").joined(separator: "; ") }
        } catch let error as DatabaseError {
            return error.message ?? "\(error)"
        }
    }
}

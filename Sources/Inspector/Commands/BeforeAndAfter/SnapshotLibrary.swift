import Foundation
import ManagedStore

/// Where snapshots taken without `--to` are kept: `$XDG_DATA_HOME/cdinspect/snapshots`
/// (`~/.local/share/cdinspect/snapshots` without it), one folder per store UUID, one per
/// snapshot in it. Read here, in the front end: the core reads no environment.
public enum SnapshotLibrary {
    static var root: URL {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"].map { $0 + "/.local/share" } ?? NSHomeDirectory() + "/.local/share")
        return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("cdinspect/snapshots", isDirectory: true)
    }

    /// The store's UUID, which names its folder; a plain SQLite file has none.
    static func uuid(of store: PersistentStore) throws -> String {
        guard !store.uuid.isEmpty else { throw SnapshotError.noStoreUUID(path: store.path) }
        return store.uuid
    }

    /// The library's folder for a new snapshot of `store` named `name`; refused when the
    /// store has a snapshot of that name.
    public static func newFolder(of store: PersistentStore, name: String) throws -> URL {
        let folder = StoreSnapshot.folder(root: root, storeUUID: try uuid(of: store), name: name)
        if FileManager.default.fileExists(atPath: folder.path) { throw SnapshotError.nameTaken(name: name, path: folder.path) }
        return folder
    }

    /// A name and folder, not yet taken, for the snapshot a command keeps of what it is about
    /// to replace: `STEM-TIME`, with `-2`, `-3`… when two come in one second.
    static func keepingFolder(_ stem: String, of store: PersistentStore) throws -> (name: String, folder: URL) {
        let uuid = try uuid(of: store)
        let base = stem + "-" + StoreSnapshot.defaultName()
        var name = base
        var n = 1
        while FileManager.default.fileExists(atPath: StoreSnapshot.folder(root: root, storeUUID: uuid, name: name).path) {
            n += 1
            name = "\(base)-\(n)"
        }
        return (name, StoreSnapshot.folder(root: root, storeUUID: uuid, name: name))
    }

    /// A snapshot as a command names it: a folder holding one (a path), or a name among
    /// the store's.
    public static func snapshot(_ word: String, of store: PersistentStore) throws -> StoreSnapshot {
        var isDirectory: ObjCBool = false
        if word.contains("/") || (FileManager.default.fileExists(atPath: word, isDirectory: &isDirectory) && isDirectory.boolValue) {
            return try StoreSnapshot(folder: URL(fileURLWithPath: word, isDirectory: true))
        }
        try StoreSnapshot.checkName(word)
        let uuid = try uuid(of: store)
        let folder = StoreSnapshot.folder(root: root, storeUUID: uuid, name: word)
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw SnapshotError.notFound(name: word, known: StoreSnapshot.all(root: root, storeUUID: uuid).map(\.name))
        }
        return try StoreSnapshot(folder: folder)
    }

    /// The store a diff's side names: a snapshot's folder, a store file, the name of one of
    /// `store`'s snapshots, or (without `store`) an app's name, as STORE everywhere.
    public static func storePath(_ word: String, beside store: PersistentStore?) throws -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: word, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? try StoreSnapshot(folder: URL(fileURLWithPath: word, isDirectory: true)).storePath : word
        }
        guard let store else { return try StoreSearch.resolve(word) }
        guard !word.contains("/"), (try? StoreSnapshot.checkName(word)) != nil, !store.uuid.isEmpty else { throw StoreError.notFound(path: word) }
        return try snapshot(word, of: store).storePath
    }

    static let columns = ["name", "time", "objects", "check", "externalDataFiles", "path", "from"]

    /// A snapshot as `snapshots` lists it, with the store file it was taken from: the
    /// library keeps a store's snapshots by its UUID, which its copies share.
    static func row(_ s: StoreSnapshot) -> [OutputValue] {
        [.string(s.name), .string(s.manifest.time), .integer(Int64(s.manifest.entityCounts.values.reduce(0, +))),
         .string(s.manifest.check), .integer(Int64(s.manifest.externalDataFiles)), .string(s.folder.path), .string(s.manifest.source)]
    }

    /// A snapshot whole, as JSON shows it: its manifest and where it is.
    static func value(_ s: StoreSnapshot) -> OutputValue {
        let m = s.manifest
        func sorted(_ d: [String: Int]) -> OutputValue { .object(d.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) }) }
        return .object([
            ("name", .string(m.name)), ("path", .string(s.folder.path)), ("store", .string(s.storePath)), ("source", .string(m.source)),
            ("storeUUID", .string(m.storeUUID)), ("time", .string(m.time)), ("entityCounts", sorted(m.entityCounts)),
            ("check", .string(m.check)), ("journalMode", .string(m.journalMode)),
            ("externalDataFiles", .integer(Int64(m.externalDataFiles))),
            ("cloudKitAssetFolders", .array(m.cloudKitAssetFolders.map(OutputValue.string))),
            ("modelVersionHashes", .object(m.modelVersionHashes.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ])
    }
}

import Foundation
import GRDB

/// The files one write adds to and takes from a store's external data folder. The end state
/// is Core Data's (coredata-store-format.md, "External binary storage"):
///
/// - a value of up to 131,072 bytes stays in the column, `01` and the bytes;
/// - a larger one is the file `.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>` (mode 0644 less the
///   umask, the raw bytes and nothing else), and the column holds `02`, the UUID in upper
///   case and one NUL: 38 bytes;
/// - the files of values the write replaced or deleted are removed.
///
/// The order that reaches it is ours, and crash-safe (docs/crash-safety.md). Core Data writes
/// `<UUID>.interim`, commits, then renames: a crash between the two leaves a row naming a
/// missing file. Here a new file is written under its final name, and it and its folder are
/// synced before the transaction that names it commits (`makeDurable`, batched: one sync of
/// the folder for all the files); files a commit stops naming are removed only after it
/// commits. A crash can then leave only files no row names, which the next write sweeps.
///
/// A batch delete writes past this, as Core Data's does: its files stay until then.
public final class ExternalDataFiles {
    /// The largest value kept in the column: Core Data's fixed threshold.
    public static let threshold = 131_072
    /// The tag before an inline value, and before a file's name.
    static let inlineTag: UInt8 = 0x01
    static let referenceTag: UInt8 = 0x02
    /// The suffix Core Data's own writes give a file until their commit.
    static let interimSuffix = ".interim"

    let folder: URL
    let storePath: String
    let disk: Disk
    /// Files this write created, by name.
    private var created: [String] = []
    /// Files of values this write replaced or deleted, removed after the commit.
    private var released: [String] = []
    /// Folders this write made, removed again when it rolls back and they are empty.
    private var madeFolders: [String] = []
    /// Files no row names, found under the write's lock: removed once it commits.
    private var leftovers: [(name: String, bytes: Int64)] = []
    /// What the write repaired or swept, for the store's notes.
    public private(set) var upkeep = ExternalDataUpkeep()

    public init(storePath: String, disk: Disk = .system) {
        self.storePath = storePath
        self.disk = disk
        folder = StoreCompanions(storePath: storePath).externalData
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The column's bytes for a Binary value of an attribute that allows external storage.
    public func stored(_ bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.count > Self.threshold else { return [Self.inlineTag] + bytes }
        let name = UUID().uuidString.uppercased()
        do {
            madeFolders += try disk.makeFolders(folder.path)
            try disk.create(path(name), bytes: bytes)
        } catch let error as DiskError {
            // A file begun and not finished (a full disk) goes with the rest at rollback.
            if FileManager.default.fileExists(atPath: path(name)) { created.append(name) }
            throw StoreError.externalData(path: error.path, reason: error.reason)
        }
        created.append(name)
        return [Self.referenceTag] + Array(name.utf8) + [0]
    }

    /// The file a column's bytes name, when they are an external reference (`02`, the name,
    /// up to the first NUL).
    public static func fileName(in stored: [UInt8]) -> String? {
        guard stored.first == referenceTag else { return nil }
        let name = String(decoding: stored.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
        // A name is one plain file name: a hand-edited row must not reach outside the folder.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return nil }
        return name
    }

    /// A stored value this write replaces or deletes: its file goes once the write commits.
    public func release(_ stored: [UInt8]) {
        if let name = Self.fileName(in: stored) { released.append(name) }
    }

    /// A value as read (`AttributeValue.externalFile`) that this write replaces or deletes.
    public func release(_ value: AttributeValue) {
        guard case .externalFile(let path, _) = value else { return }
        let name = URL(fileURLWithPath: path).lastPathComponent
        if !name.isEmpty, name != "..", name != "." { released.append(name) }
    }

    /// Whether `stored` names a file holding exactly `bytes`: a value written back unchanged
    /// keeps its reference, and no new file is made.
    public func holds(_ stored: [UInt8], _ bytes: [UInt8]) -> Bool {
        guard let name = Self.fileName(in: stored),
              let data = FileManager.default.contents(atPath: path(name)) else { return false }
        return data.count == bytes.count && data.elementsEqual(bytes)
    }

    /// Where the write is now, for `discard(since:)`.
    public var mark: (created: Int, released: Int) { (created.count, released.count) }

    /// One object of a write was refused and the write goes on without it (an import that
    /// skips invalid objects): what it wrote and released since `mark` is undone.
    public func discard(since mark: (created: Int, released: Int)) {
        for name in created[mark.created...] { try? disk.remove(path(name)) }
        created.removeSubrange(mark.created...)
        released.removeSubrange(mark.released...)
    }

    /// Called last inside the write's transaction, before it commits: repairs what an earlier
    /// crash left (`prepareUpkeep`), then makes every file this write created durable, each
    /// file and then its folder, so that no commit can name a file a power cut would lose.
    public func makeDurable(_ db: Database, store: PersistentStore) throws {
        try prepareUpkeep(db, store: store)
        do {
            try disk.sync(created.map(path))
            if !created.isEmpty || !upkeep.rolledForward.isEmpty { try disk.syncFolder(folder.path) }
        } catch let error as DiskError {
            throw StoreError.externalData(path: error.path, reason: error.reason)
        }
    }

    /// The transaction committed: the released files and the leftovers found go. (A failure
    /// here cannot undo the commit; a file left behind is one the next write sweeps.)
    public func committed() {
        for name in released where !created.contains(name) { try? disk.remove(path(name)) }
        for leftover in leftovers { try? disk.remove(path(leftover.name)) }
        upkeep.removed = leftovers.count
        upkeep.removedBytes = leftovers.reduce(0) { $0 + $1.bytes }
        created = []
        released = []
        madeFolders = []
        leftovers = []
    }

    /// Set when the commit failed on the disk after SQLite began it (`Coordinator`): the
    /// `-wal` may hold it whole, so the files it names are not removed.
    public var commitInDoubt = false

    /// The transaction rolled back: nothing it wrote stays (unless its commit is in doubt:
    /// then what it wrote stays, as files the next write sweeps if no row names them).
    public func rolledBack() {
        if !commitInDoubt {
            for name in created { try? disk.remove(path(name)) }
            for made in madeFolders.reversed() { disk.removeEmptyFolder(made) }
        }
        commitInDoubt = false
        created = []
        released = []
        madeFolders = []
        leftovers = []
        upkeep.removed = 0
        upkeep.removedBytes = 0
    }

    /// Runs `write` (a transaction that calls `makeDurable` before it commits) and settles the
    /// files by how it ended.
    public func settle<T>(_ write: () throws -> T) throws -> T {
        do {
            let result = try write()
            committed()
            return result
        } catch {
            rolledBack()
            throw error
        }
    }

    // MARK: What an earlier crash left

    /// Finds, under the write's lock, what earlier writes left in the folder:
    /// - `<UUID>` files no row names (a write killed before its commit, here or in the app;
    ///   a batch delete's): removed once this write commits;
    /// - `<UUID>.interim` files: Core Data's own window. A row that names the missing
    ///   `<UUID>` gets its file by renaming the `.interim` (rolled forward now: the row is
    ///   committed already); one no row names is a save that never committed, removed with
    ///   the leftovers. Both only when no other process has the store open: the app may be
    ///   between its own commit and rename.
    /// Nothing is touched when the folder may be shared (another store file with the same
    /// name before its extension shares `.<name>_SUPPORT`).
    func prepareUpkeep(_ db: Database, store: PersistentStore) throws {
        leftovers = []
        upkeep.rolledForward = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let candidates = names.filter {
            ExternalReferences.isReferenceName($0)
                || ($0.hasSuffix(Self.interimSuffix) && ExternalReferences.isReferenceName(String($0.dropLast(Self.interimSuffix.count))))
        }
        guard !candidates.isEmpty, !StoreCompanions(storePath: storePath).supportFolderIsShared,
              let referenced = try ExternalReferences.names(db, store: store) else { return }
        let ours = Set(created)
        var interims: [String] = []
        for name in candidates where !ours.contains(name) {
            if name.hasSuffix(Self.interimSuffix) { interims.append(name); continue }
            if !referenced.contains(name) { leftovers.append((name, size(name))) }
        }
        guard !interims.isEmpty else { return }
        let file = store.file
        guard ProcessUse.others(using: [file.path, file.walPath, file.sharedMemoryPath]).isEmpty else { return }
        for interim in interims {
            let name = String(interim.dropLast(Self.interimSuffix.count))
            if referenced.contains(name) && !FileManager.default.fileExists(atPath: path(name)) {
                do { try disk.rename(path(interim), to: path(name)) } catch { continue }
                upkeep.rolledForward.append(name)
            } else {
                leftovers.append((interim, size(interim)))
            }
        }
    }

    private func size(_ name: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path(name)))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}

/// What a write repaired or swept in the external data folder, said after it.
public struct ExternalDataUpkeep: Sendable, Equatable, CustomStringConvertible {
    /// `<UUID>` files given their names from the `.interim` a killed save left.
    public var rolledForward: [String] = []
    /// Files no row named, removed, and their bytes.
    public var removed = 0
    public var removedBytes: Int64 = 0

    public var isEmpty: Bool { rolledForward.isEmpty && removed == 0 }

    public var description: String {
        var parts: [String] = []
        if !rolledForward.isEmpty {
            parts.append("\(rolledForward.count) externally stored value(s) a killed save left under .interim names were put in place")
        }
        if removed > 0 { parts.append("\(removed) external data file(s) no row names were removed (\(removedBytes) bytes)") }
        return parts.joined(separator: "; ")
    }
}

/// Why a snapshot could not be taken, found or put back, in Core Data's and the file
/// system's terms; the command line adds its options.
public enum SnapshotError: Error, CustomStringConvertible, Equatable {
    /// A name that is no single plain folder name.
    case badName(String)
    case nameTaken(name: String, path: String)
    /// `--to`'s folder already holds a file of the snapshot's.
    case targetOccupied(path: String)
    /// No snapshot of that name for the store; `known` lists the ones there are.
    case notFound(name: String, known: [String])
    case notASnapshot(path: String)
    case damagedManifest(path: String, detail: String)
    /// A plain SQLite file has no store UUID to file its snapshots under.
    case noStoreUUID(path: String)
    /// Other processes have the store open: a restore under them would hand them a store
    /// that changed beneath their connections.
    case storeInUse(path: String, users: [ProcessUse])
    /// The snapshot's model version hashes are not the store's, by entity.
    case modelDiffers(entities: [String])
    /// The snapshot's store file is missing from its folder.
    case storeFileMissing(path: String)
    /// SQLite's `quick_check` found the snapshot's copy damaged (`found`: what it said).
    case damaged(path: String, found: String)
    /// A file of the snapshot or of the restore could not be written (a full disk, a
    /// read-only folder); what was begun is undone.
    case cannotWrite(path: String, reason: String)
    /// The rows were restored, but files they name (photos, external data) could not be
    /// made durably the snapshot's: a rename or its folder's sync failed.
    case filesNotReplaced(paths: [String], reason: String)
    /// The disk failed while SQLite synced the restored rows, which the files hold all the
    /// same: the next open reads them, but a power cut may still take them back.
    case restoredUnsure(reason: String)

    public var description: String {
        switch self {
        case .badName(let name):
            return "'\(name)' cannot name a snapshot: use letters, digits, '.', '-' and '_', not starting with '.'"
        case .nameTaken(let name, let path): return "a snapshot named '\(name)' exists already (\(path))"
        case .targetOccupied(let path): return "\(path) exists: a snapshot is written into a new or empty folder"
        case .notFound(let name, let known):
            return "no snapshot named '\(name)' of this store" + (known.isEmpty ? " (it has none)" : " (it has " + known.joined(separator: ", ") + ")")
        case .notASnapshot(let path): return "\(path) is no snapshot: it has no \(SnapshotManifest.fileName)"
        case .damagedManifest(let path, let detail): return "\(path) cannot be read: \(detail)"
        case .noStoreUUID(let path): return "\(path) has no store UUID (Z_METADATA): its snapshots have no folder of their own"
        case .storeInUse(let path, let users):
            return "\(path) is open in " + users.map(\.description).joined(separator: ", ")
                + ": a restore would change the store under its connections"
        case .modelDiffers(let entities):
            return "the snapshot's model is not the store's: the version hashes of " + entities.joined(separator: ", ")
                + " differ, so the app would not open the restored store without a migration"
        case .storeFileMissing(let path): return "the snapshot's store file \(path) is missing"
        case .damaged(let path, let found):
            let first = found.split(separator: ";").first.map(String.init) ?? found
            let more = found.contains(";") ? " (and more)" : ""
            return "the snapshot \(path) is damaged (SQLite's quick_check: \(first)\(more)): nothing was restored"
        case .cannotWrite(let path, let reason):
            return "cannot write \(path): \(reason); nothing was changed"
        case .restoredUnsure(let reason):
            return "the disk failed while the restored rows were being synced (\(reason)): the store's files hold them and its "
                + "folders match them, but a power cut may still take them back; restore the same snapshot again once the disk is sound"
        case .filesNotReplaced(let paths, let reason):
            let more = paths.count > 1 ? " and \(paths.count - 1) more" : ""
            return "the rows were restored, but \(paths[0])\(more) may not hold the snapshot's bytes that the restored rows "
                + "expect (\(reason)): restore the same snapshot again to replace them"
        }
    }
}

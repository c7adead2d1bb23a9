/// Something wrong with a store that does not stop it from opening, but changes what a
/// user sees: said once per open, so that an answer is never silently older or vaguer than
/// the store.
public enum StoreWarning: Sendable, Equatable, CustomStringConvertible {
    /// Committed changes in the `-wal` that SQLite ignores, because the file does not verify.
    case hiddenWALChanges(path: String, detail: String)
    /// `Z_MODELCACHE` is there but does not decode; the model comes from the schema.
    case unreadableModelCache(String)
    /// `Z_PRIMARYKEY` without a `Z_METADATA` row.
    case noMetadata
    /// Columns the model predicts that the tables do not have (a model of another version,
    /// a hand-edited store): each as `Entity.property: TABLE.COLUMN`.
    case missingColumns([String])
    /// A past generation read where a checkpoint has since copied later saves into the main
    /// file: those pages read as they are now.
    case partialGeneration(token: String, stalePages: Int)
    /// A WAL store whose `-shm` names frames that no `-wal` beside it holds: saves newer than
    /// the main file were lost with the `-wal` (a store copied without it).
    case missingWAL(path: String, frames: Int)
    /// A WAL store with no `-wal` whose history counter (`Z_PRIMARYKEY`) is past the newest
    /// transaction it holds: the saves after it were in the missing `-wal`.
    case missingSaves(path: String, issuedTransaction: Int64, newestTransaction: Int64)
    /// Read as evidence: a WAL store with no `-wal` beside it, where nothing proves saves are
    /// missing (it was closed cleanly, or copied without it). A note, not a warning.
    case noWAL(path: String)

    /// Said as a note rather than a warning: nothing is known to be wrong.
    public var isNote: Bool {
        if case .noWAL = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .hiddenWALChanges(let path, let detail):
            return "\(path): \(detail)"
        case .unreadableModelCache(let why):
            return "the store's model cache (Z_MODELCACHE) cannot be read (\(why)); "
                + "the model is rebuilt from the schema, so property names are uppercase guesses"
        case .noMetadata:
            return "the store has no Z_METADATA row: it has no UUID, and no store type or model version hashes to show"
        case .partialGeneration(let token, let pages):
            return "generation \(token) is partial: a checkpoint has since copied later saves into the main file, so \(pages) "
                + "page\(pages == 1 ? "" : "s") of it read as a later state; rows on them may be newer than \(token)"
        case .missingWAL(let path, let frames):
            return "\(path) has no -wal, but its -shm says the -wal held \(frames) frame\(frames == 1 ? "" : "s"): the newest saves are missing "
                + "(copy the store together with its -wal)"
        case .missingSaves(let path, let issued, let newest):
            return "\(path) has no -wal, but its history counter says transaction \(issued) was saved, and the newest it holds is \(newest): "
                + "the newest saves are missing (copy the store together with its -wal)"
        case .noWAL(let path):
            return "\(path) is a WAL store with no -wal beside it: it was closed cleanly, or its -wal was not copied with it, "
                + "and saves a missing -wal held cannot be read"
        case .missingColumns(let columns):
            let shown = columns.prefix(3).joined(separator: "; ") + (columns.count > 3 ? "; and \(columns.count - 3) more" : "")
            return "the model does not match the store's tables, so these properties read as nil: \(shown)"
        }
    }
}

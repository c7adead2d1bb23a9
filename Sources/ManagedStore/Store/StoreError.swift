/// Everything that can go wrong opening or reading a store, phrased for the person at the
/// terminal: each case says what is wrong and, where there is one, what to do about it.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    case notFound(path: String)
    case isDirectory(path: String)
    case permissionDenied(path: String)
    case notSQLite(path: String)
    case corrupt(path: String, detail: String)
    case locked(path: String)
    case sharedMemoryUnavailable(path: String)
    case readOnly(path: String)
    /// An immutable open was asked for, and a `-wal` holds changes it would not see.
    case walBesideImmutable(path: String, walBytes: Int)
    case unknownEntity(name: String, suggestion: String?)
    case unknownProperty(entity: String, name: String)
    /// The model has the entity, the store has no table for it: the model is not the store's.
    case entityHasNoTable(entity: String, table: String)
    case invalidModel(String)
    case sqlite(String)
    /// `Z_PRIMARYKEY.Z_MAX`, the last primary key handed out for an entity's table, holds
    /// something no new key can follow (a hand-edited or damaged store): `problem` says what.
    case primaryKeyCounterDamaged(entity: String, stored: String, problem: String)
    /// Ctrl-C (SIGINT) stopped the command; whatever it was writing was rolled back.
    case interrupted
    /// The file at the store's path was deleted, or another file was moved over it, while
    /// it was followed: what happens to the new file is not what was being followed.
    case replaced(path: String)
    /// An externally stored value's file or folder could not be written.
    case externalData(path: String, reason: String)
    /// A generation token the store's files do not list; `known` names those they do.
    case unknownGeneration(token: String, known: String)
    /// A listed entry that is not a whole generation (an earlier WAL's leftovers, a
    /// transaction that never committed).
    case unreadableGeneration(token: String, why: String)
    /// A past generation being read can no longer be read from the files: the app
    /// checkpointed or restarted the `-wal` meanwhile.
    case generationGone(token: String, why: String)
    /// A past generation is read-only: the files hold it, no save can go into it.
    case pastGenerationIsReadOnly(token: String)
    /// The folder holding a store that is about to be written could not be synced: the
    /// `-wal` SQLite made there might not survive a power cut, nor the saves in it.
    case folderNotSynced(path: String, reason: String)

    public var description: String {
        switch self {
        case .folderNotSynced(let path, let reason):
            return "cannot sync the folder \(path) (\(reason)): a save there might not survive a power cut, so nothing was written"
        case .interrupted:
            return "interrupted: the command stopped, and any changes it was making were rolled back"
        case .notFound(let path):
            return "no such file: \(path)"
        case .externalData(let path, let reason):
            return "cannot write the external data file \(path): \(reason); nothing was saved"
        case .isDirectory(let path):
            return "\(path) is a directory, not a store file (give the .sqlite file inside it)"
        case .permissionDenied(let path):
            return "cannot read \(path): permission denied"
        case .notSQLite(let path):
            return "\(path) is not an SQLite database (no \"SQLite format 3\" header)"
        case .corrupt(let path, let detail):
            return "\(path) is damaged: \(detail)"
        case .locked(let path):
            return "\(path) is locked by another process; try again when it is done writing"
        case .walBesideImmutable(let path, let bytes):
            return "\(path)-wal holds \(bytes) bytes of changes, which an immutable open would not see"
        case .sharedMemoryUnavailable(let path):
            return "\(path) is a WAL store and its -shm file cannot be created in that folder; "
                + "copy the store together with its -wal file to a writable folder and open the copy"
        case .readOnly(let path):
            return "\(path) is open read-only, and this command writes to the store"
        case .unknownEntity(let name, let suggestion):
            return "unknown entity '\(name)'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
        case .unknownProperty(let entity, let name):
            return "entity \(entity) has no property '\(name)'"
        case .entityHasNoTable(let entity, let table):
            return "the model's entity \(entity) has no table in the store (\(table) is missing): the model is not the one the store was written with"
        case .invalidModel(let why):
            return "cannot read the model: \(why)"
        case .sqlite(let message):
            return message
        case .replaced(let path):
            return "\(path) was deleted or replaced while it was watched: changes after that are not followed"
        case .unknownGeneration(let token, let known):
            return "no generation '\(token)' in the store's files (they hold \(known))"
        case .unreadableGeneration(let token, let why):
            return "'\(token)' cannot be read as a generation: \(why)"
        case .generationGone(let token, let why):
            return "generation \(token) can no longer be read: \(why)"
        case .pastGenerationIsReadOnly(let token):
            return "generation \(token) is a past state of the store, read in place: nothing can be written to it"
        case .primaryKeyCounterDamaged(let entity, let stored, let problem):
            return "Z_PRIMARYKEY's Z_MAX for \(entity) is \(stored), \(problem): "
                + "new \(entity) objects cannot be given primary keys"
        }
    }
}

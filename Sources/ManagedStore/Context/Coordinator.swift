import Foundation
import CSQLiteControls
import GRDB

/// The persistent store coordinator: one per open store, shared by every context. It owns
/// the connections (the read-only one the store opened, and a writer opened only when a
/// save needs one), hands out temporary object IDs, and tells root contexts about each
/// other's saves.
public final class Coordinator {
    public let store: PersistentStore
    private var writer: DatabaseQueue?
    /// Whether a write through `writer` has committed: a writer that only rolled back (a dry
    /// run, a refused save) changed nothing, and its close must not fold the `-wal` either.
    private var committed = false
    /// Where the external data files of this coordinator's saves are written: the system's,
    /// or a recording one in the power-cut test.
    public var disk: Disk = .system
    private var temporaryCount: Int64 = 0
    /// Temporary IDs that a save made permanent. A child context keeps using the temporary
    /// ID after its parent saves (as in Core Data); lookups translate it.
    private(set) var permanentIDs: [ObjectID: ObjectID] = [:]
    private var roots: [WeakContext] = []
    private var generations: [WeakGeneration] = []
    private var generationCount = 0
    /// Called once, as the first write opens its connection, with the number of committed
    /// transactions the `-wal` holds: when the writer closes, SQLite checkpoints them into
    /// the main file and they can no longer be read as past generations.
    public var willFoldPastGenerations: ((Int) -> Void)?

    public init(store: PersistentStore) {
        self.store = store
    }

    public var mapping: StoreMapping { store.mapping }

    /// Closes every connection, for a process that exits without releasing its objects:
    /// the generations', the store's, and the writer's last. SQLite checkpoints a store's
    /// `-wal` into the file and removes it when the last connection closes, and only a
    /// writer can, so a store this coordinator changed is left as a release leaves it.
    public func close() {
        for generation in liveGenerations { generation.release() }
        store.close()
        guard let writer else { return }
        if !committed {
            // SQLite checkpoints on the last connection's close whether or not it wrote: a
            // writer that committed nothing leaves the -wal, and the saves it holds, as they were.
            writer.writeWithoutTransaction { db in _ = cdi_db_config(db.sqliteConnection, cdi_dbconfig_no_checkpoint_on_close, 1) }
        }
        try? StoreConnection.close(writer)
    }

    /// Reads at the newest committed state of the store.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try store.read(body)
    }

    /// Runs `body` in one exclusive transaction on the writer, as Core Data's saves do
    /// (`BEGIN EXCLUSIVE` … `COMMIT`); any error rolls the whole transaction back. Every
    /// write (a save or a batch request) gets the debug log's `sql execution time` before
    /// its `COMMIT`.
    ///
    /// `files`, the external data files the body writes and releases, follow the crash-safe
    /// protocol (docs/crash-safety.md) here, for every write that has them: made durable
    /// (with what an earlier crash left repaired) as the body's last step inside the
    /// transaction, released files removed only once it commits, everything new removed if
    /// it rolls back.
    func write<T>(files: ExternalDataFiles? = nil, _ body: (Database) throws -> T) throws -> T {
        guard store.isCoreDataStore else { throw ContextError.notCoreData }
        if store.options.readonly { throw StoreError.readOnly(path: store.path) }
        let queue: DatabaseQueue
        if let writer { queue = writer } else {
            if let fold = willFoldPastGenerations, let commits = try? StoreTimeline.read(path: store.path).commits.count, commits > 0 {
                fold(commits)
            }
            queue = try StoreConnection.open(store.file, readonly: false, log: store.log)
            writer = queue
        }
        let store = self.store
        func transaction() throws -> T {
            var commitAsked = false
            do {
                return try queue.writeWithoutTransaction { db in
                    var result: T?
                    try db.inTransaction(.exclusive) {
                        let timer = store.log?.shows(1) == true ? SQLTimer() : nil
                        defer { if let timer { store.log?.executed(time: timer.elapsed) } }
                        result = try body(db)
                        try files?.makeDurable(db, store: store)
                        commitAsked = true
                        return .commit
                    }
                    committed = true
                    return result!
                }
            } catch let error as DatabaseError {
                // The disk failed while SQLite wrote or synced the commit: the -wal may hold it
                // whole, and the next open would find it, so the files its rows name stay (if it
                // is not there, they are files no row names, which the next write sweeps).
                if commitAsked, [.SQLITE_IOERR, .SQLITE_FULL].contains(error.resultCode) { files?.commitInDoubt = true }
                throw StoreConnection.translate(error, file: store.file)
            }
        }
        guard let files else { return try transaction() }
        let result = try files.settle(transaction)
        store.noteUpkeep(files.upkeep)
        return result
    }

    func nextTemporaryID(_ entity: String) -> ObjectID {
        temporaryCount += 1
        return ObjectID.temporary(entityName: entity, number: temporaryCount)
    }

    func recordPermanent(_ temporary: ObjectID, _ permanent: ObjectID) {
        permanentIDs[temporary] = permanent
    }

    /// The ID an object has now: a temporary ID that was saved becomes its permanent one.
    public func resolve(_ id: ObjectID) -> ObjectID {
        permanentIDs[id] ?? id
    }

    /// Parses an ID as a user types it, filling in this store's UUID, and checks the entity.
    /// The concrete entity is looked up as `context` sees the store (at its generation).
    public func objectID(parsing text: String, in context: Context? = nil) throws -> ObjectID {
        guard let parsed = ObjectID.parse(text) else { throw ContextError.badObjectID(text) }
        let entity = try store.entity(parsed.entityName)
        if parsed.primaryKey < 0 { return ObjectID.temporary(entityName: entity.name, number: -parsed.primaryKey) }
        if let uuid = parsed.storeUUID, !uuid.isEmpty, uuid != store.uuid {
            throw ContextError.otherStore(id: text, uuid: store.uuid)
        }
        // `Car/p2` may name a SportsCar: object IDs always carry the concrete entity.
        var concrete = entity.name
        if entity.tableHasSubentities, let column = entity.entityColumn,
           let id = try { () throws -> Int? in
               let lookup = { (db: Database) in
                   try Int.fetchOne(db, sql: "SELECT \(SQL.identifier(column)) FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ?",
                                    arguments: [parsed.primaryKey])
               }
               return try context.map { try $0.readStore(lookup) } ?? read(lookup)
           }(), let found = mapping.entity(withID: id) {
            concrete = found.name
        }
        return ObjectID(storeUUID: store.uuid, entityName: concrete, primaryKey: parsed.primaryKey)
    }

    // MARK: Generations

    /// A new generation at the newest transaction; its snapshot is taken at its first read.
    func makeGeneration() -> Generation {
        generationCount += 1
        let generation = Generation(token: "g\(generationCount)", file: store.file, log: store.log)
        generations.removeAll { $0.generation == nil }
        generations.append(WeakGeneration(generation: generation))
        return generation
    }

    /// The generations some context is still pinned to, oldest first.
    public var liveGenerations: [Generation] {
        generations.compactMap(\.generation)
    }

    public func generation(token: String) -> Generation? {
        liveGenerations.first { $0.token == token }
    }

    /// The generation a token names: a live one, or a past one the store's files hold (`w0`,
    /// `w3`: `StoreTimeline`), read in place. Two contexts pinned to the same past token
    /// share one generation while either is pinned.
    public func generation(resolving token: String) throws -> Generation {
        if let live = generation(token: token) { return live }
        guard StoreTimeline.isPastToken(token) else { throw ContextError.unknownGeneration(token) }
        let generation = Generation(token: token.lowercased(), file: try store.file.reading(generation: token), log: store.log)
        generations.removeAll { $0.generation == nil }
        generations.append(WeakGeneration(generation: generation))
        return generation
    }

    /// The root contexts pinned to a generation.
    public func contexts(pinnedTo generation: Generation) -> [Context] {
        roots.compactMap(\.context).filter { $0.generation === generation }
    }

    /// The journal mode the store is in now (`wal`, `delete`, …): generations need `wal`.
    public func journalMode() throws -> String {
        try read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }.lowercased()
    }

    func register(root context: Context) {
        roots.removeAll { $0.context == nil }
        roots.append(WeakContext(context: context))
    }

    /// Root contexts other than `saver` that merge saves automatically.
    func mergingRoots(except saver: Context) -> [Context] {
        roots.compactMap(\.context).filter { $0 !== saver && $0.automaticallyMergesChanges }
    }
}

struct WeakContext {
    weak var context: Context?
}

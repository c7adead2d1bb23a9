import Foundation
import GRDB

/// An open store: the file, a read-only connection, its metadata, its model and the mapping
/// of that model onto the schema. Opening reads and never writes.
public final class PersistentStore {
    public struct Options: Sendable {
        /// An `.xcdatamodeld`, `.xcdatamodel` or `contents` file, used when the store has no model cache.
        public var modelPath: String?
        public var readonly: Bool
        /// Opened as evidence: `immutable=1`, nothing on disk created or changed (implies
        /// `readonly`).
        public var immutable: Bool
        /// A generation the store's files hold (`w0`, `w3`: `StoreTimeline`), read in place
        /// instead of the newest state (implies `readonly`).
        public var generation: String?
        /// A store no process has open (WAL mode, no `-shm` beside it) is read in place, its
        /// main file and its `-wal`'s commits through `GenerationVFS`, so that reading creates
        /// no `-wal` or `-shm` (for commands that never write; implies `readonly`).
        public var readsInPlaceWhenClosed = false
        /// Seconds a connection waits for another process's lock before giving up.
        public var busyTimeout: TimeInterval
        /// Where Core Data's SQL debug lines go; nil when nothing can ever turn them on.
        public var log: SQLDebugLog?

        public init(modelPath: String? = nil, readonly: Bool = false, immutable: Bool = false, generation: String? = nil,
                    busyTimeout: TimeInterval = 2, log: SQLDebugLog? = nil) {
            self.modelPath = modelPath
            self.busyTimeout = busyTimeout
            self.generation = generation
            self.readonly = readonly || immutable || generation != nil
            self.immutable = immutable
            self.log = log
        }
    }

    public let file: StoreFile
    public let options: Options
    public let reader: DatabaseQueue
    public let schema: SchemaSnapshot
    public let metadata: StoreMetadata?
    public let mapping: StoreMapping
    public var model: ManagedObjectModel { mapping.model }
    /// What a user must know about what was opened, said once per open: a damaged `-wal`
    /// whose newest changes SQLite ignores, a model cache that could not be read.
    public private(set) var warnings: [StoreWarning] = []
    /// The to-many bit order learned from the history, once (`learnedToManyOrder`).
    let learnedOrders = LearnedToManyOrderCache()
    /// What writes did beside what was asked (files an earlier crash left, repaired or
    /// swept), kept until a front end says it (`takeUpkeep`).
    private let upkeep = UpkeepNotes()

    func noteUpkeep(_ done: ExternalDataUpkeep) {
        if !done.isEmpty { upkeep.append(done) }
    }

    /// What writes since the last call repaired or swept beside the store, once each.
    public func takeUpkeep() -> [ExternalDataUpkeep] { upkeep.take() }

    public var path: String { file.path }
    public var log: SQLDebugLog? { options.log }
    public var isCoreDataStore: Bool { schema.isCoreDataStore }
    /// Object IDs print as `x-coredata://UUID/Entity/pN`; a plain SQLite file has no UUID.
    public var uuid: String { metadata?.uuid ?? "" }

    /// Closes the read-only connection now rather than when the store is released, for a
    /// process about to exit. Nothing can be read from the store afterwards. A connection
    /// that still has a statement open stays open, and exiting closes it.
    public func close() {
        try? StoreConnection.close(reader)
    }

    public init(path: String, options: Options = Options()) throws {
        var file = try StoreFile(path: path)
        if let generation = options.generation {
            file = try file.reading(generation: generation)
        } else if options.immutable {
            file = try file.immutableCopy()
        } else if options.readsInPlaceWhenClosed, file.journalMode == .wal, StoreFile.status(file.sharedMemoryPath) == nil {
            // SQLite keeps a -shm beside a WAL store while any connection has it open, so
            // none does: the files are the store's whole state, and reading them in place
            // changes nothing. (A read through SQLite would create the -wal and -shm.)
            let timeline = try StoreTimeline.read(path: path)
            file = try file.reading(generation: timeline.newestToken, in: timeline)
        }
        file.busyTimeout = options.busyTimeout
        self.file = file
        self.options = options
        reader = try StoreConnection.open(file, readonly: true, log: options.log)
        do {
            let (schema, metadata, cache) = try reader.read { db -> (SchemaSnapshot, StoreMetadata?, [UInt8]?) in
                let schema = try SchemaSnapshot.read(db)
                var metadata: StoreMetadata?
                if schema.isCoreDataStore, let table = schema.table("Z_METADATA"),
                   let row = try Row.fetchOne(db, sql: PersistentStore.metadataQuery(table)) {
                    let plist = row.lenient("Z_PLIST", as: Data.self)
                    metadata = StoreMetadata(uuid: row.lenient("Z_UUID") ?? "", plistBytes: plist.map { [UInt8]($0) })
                }
                var cache: [UInt8]?
                if schema.isCoreDataStore, schema.table("Z_MODELCACHE")?.hasColumn("Z_CONTENT") == true {
                    let blob: Data? = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
                    cache = blob.map { [UInt8]($0) }
                }
                return (schema, metadata, cache)
            }
            self.schema = schema
            self.metadata = metadata
            let model = try PersistentStore.discoverModel(schema: schema, cache: cache, modelPath: options.modelPath)
            mapping = StoreMapping(model: model, schema: schema)
        } catch {
            throw StoreConnection.translate(error, file: file)
        }
        if case .schemaAfterUnreadableCache(let why) = model.source { warnings.append(.unreadableModelCache(why)) }
        if schema.isCoreDataStore && metadata == nil { warnings.append(.noMetadata) }
        if !mapping.missingColumns.isEmpty { warnings.append(.missingColumns(mapping.missingColumns)) }
        if let image = file.image, image.stalePages > 0 {
            warnings.append(.partialGeneration(token: image.token, stalePages: image.stalePages))
        }
        if file.journalMode == .wal, (file.walSize ?? 0) == 0,
           let index = WALIndex.read(sharedMemoryPath: file.sharedMemoryPath, fallbackPageSize: file.pageSize),
           index.lastFrame > index.backfilledFrames {
            warnings.append(.missingWAL(path: file.path, frames: index.lastFrame))
        } else if file.journalMode == .wal, (file.walSize ?? 0) == 0, schema.table("ATRANSACTION") != nil,
                  let (issued, newest) = try? reader.read({ try PersistentStore.historyCounters($0) }), issued > newest {
            warnings.append(.missingSaves(path: file.path, issuedTransaction: issued, newestTransaction: newest))
        } else if options.immutable, file.journalMode == .wal, file.walSize == nil {
            warnings.append(.noWAL(path: file.path))
        }
        // Read in place, the format reader has read the whole -wal already; otherwise a
        // cheaper look past the WAL index's last frame.
        if let hidden = file.image.map({ $0.walDamage }) ?? PersistentStore.hiddenWALChanges(file) { warnings.append(.hiddenWALChanges(path: file.path, detail: hidden)) }
    }

    /// The history transaction key `Z_PRIMARYKEY` says was issued last, and the newest row of
    /// `ATRANSACTION`, when the table has rows. Core Data writes both in the save that adds a
    /// transaction, and trims history only from the oldest end (`deleteHistory(before:)`), so
    /// a main file whose counter is past its newest row is missing the saves after it: they
    /// were in a `-wal` that is not there. (Every history store in the fixtures has the two equal.)
    static func historyCounters(_ db: Database) throws -> (issued: Int64, newest: Int64)? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(HistoryWriter.transactionEntity)), (SELECT max(Z_PK) FROM ATRANSACTION)
            """), let issued: Int64 = row.lenient(0), let newest: Int64 = row.lenient(1) else { return nil }
        return (issued, newest)
    }

    /// Core Data's own query when the table has its columns (the SQL debug log shows it),
    /// and whatever row there is when a hand-made table lacks some.
    private static func metadataQuery(_ table: SchemaSnapshot.Table) -> String {
        guard ["Z_VERSION", "Z_UUID", "Z_PLIST"].allSatisfy(table.hasColumn) else { return "SELECT * FROM Z_METADATA LIMIT 1" }
        return "SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1"
    }

    /// The `-wal` check, once more after a moment if it finds something: a writer in another
    /// process appends a commit frame just before it publishes the frame in the WAL index.
    private static func hiddenWALChanges(_ file: StoreFile) -> String? {
        guard file.journalMode == .wal, (file.walSize ?? 0) > 0 else { return nil }
        var found: String?
        for attempt in 0..<2 {
            if attempt > 0 { usleep(50_000) }
            let index = WALIndex.read(file)
            found = WALFile.hiddenChanges(file, visibleFrames: index?.lastFrame ?? 0, pageSize: index?.pageSize ?? file.pageSize)
            if found == nil { return nil }
        }
        return found
    }

    /// Best source first: the store's own cache, then the user's model file, then the schema.
    /// An explicit `--model` wins over the cache, since the user asked for it.
    static func discoverModel(schema: SchemaSnapshot, cache: [UInt8]?, modelPath: String?) throws -> ManagedObjectModel {
        if let modelPath {
            do { return try XcdatamodelReader.model(atPath: modelPath) } catch {
                throw StoreError.invalidModel("\(error)")
            }
        }
        guard schema.isCoreDataStore else { return SchemaModelReader.plainModel(schema) }
        if let cache {
            do { return try loadable(ModelCacheReader.model(fromCompressed: cache)) } catch {
                // A cache that cannot be read leaves the schema, which is always there.
                return SchemaModelReader.coreDataModel(schema, source: .schemaAfterUnreadableCache("\(error)"))
            }
        }
        return SchemaModelReader.coreDataModel(schema)
    }

    /// A model read from a cache, refused (the schema read instead) when Core Data would
    /// not load it (`loadProblem`: a loop of parent entities, a name given twice): every walk
    /// up or down the hierarchy would have to guard against it. A model file is judged the
    /// same way as it is read.
    private static func loadable(_ model: ManagedObjectModel) throws -> ManagedObjectModel {
        if let problem = model.loadProblem { throw StoreError.invalidModel(problem) }
        return model
    }

    /// Resolves an entity name the way a user types it, with a suggestion when it is wrong.
    public func entity(_ name: String) throws -> EntityMapping {
        if let e = mapping.entity(named: name) {
            // A model that is not the store's (a newer version given as the model) can have
            // entities the store has no table for.
            guard schema.table(e.table) != nil else { throw StoreError.entityHasNoTable(entity: e.name, table: e.table) }
            return e
        }
        throw StoreError.unknownEntity(name: name, suggestion: Spelling.nearest(name, in: mapping.entities.map(\.name)))
    }
}


/// The store's upkeep notes, written by whichever thread wrote and read by the front end.
final class UpkeepNotes: @unchecked Sendable {
    private let lock = NSLock()
    private var notes: [ExternalDataUpkeep] = []

    func append(_ note: ExternalDataUpkeep) {
        lock.lock()
        notes.append(note)
        lock.unlock()
    }

    func take() -> [ExternalDataUpkeep] {
        lock.lock()
        defer { notes = []; lock.unlock() }
        return notes
    }
}

import Foundation
import GRDB

/// Objects from a file written into a store as one context save would write them: every
/// incoming object checked as `save` checks it (the attribute's type and range, required
/// attributes and relationships, to-many counts), rows in Core Data's statement shapes with
/// `Z_PK` from `Z_PRIMARYKEY` and `Z_OPT` 1, both sides of every relationship (join rows,
/// the inverse's key column, the version and history of objects already in the store whose
/// relationships change), and one persistent history transaction by the author the
/// options name. All of it in one exclusive transaction: a kill at any moment leaves
/// the store as it was.
///
/// The file is read twice: once for its object IDs, so that a relationship can name an
/// object that comes later in the file (and to find every fault in the text before anything
/// is written), then for the objects, one at a time. (A CSV without object IDs is read once.) What stays in memory grows with the
/// objects the file names by ID (8 bytes each) and the store objects whose relationships
/// change, not with the file.
public struct StoreImport {
    public let store: PersistentStore
    public let path: String
    public let options: ImportOptions
    public let format: ImportOptions.Format
    let entity: EntityMapping?

    public init(store: PersistentStore, file: String, options: ImportOptions) throws {
        guard store.isCoreDataStore else { throw ContextError.notCoreData }
        self.store = store
        path = file
        self.options = options
        format = options.format ?? (file.lowercased().hasSuffix(".csv") ? .csv : .json)
        if let name = options.entity {
            guard let found = store.mapping.entity(named: name) else { throw StoreError.unknownEntity(name: name, suggestion: nil) }
            guard !found.isAbstract, found.entityID != nil else {
                throw ContextError.badValue(entity: found.name, key: "", why: "the entity is abstract; import one of its sub-entities")
            }
            entity = found
            for key in options.upsertKeys where found.attribute(key) == nil && !options.upsertsByObjectID {
                throw ImportError.unknownKey(entity: found.name, key: key)
            }
            for (relationship, key) in options.links {
                guard let r = found.relationship(relationship) else { throw ImportError.unknownKey(entity: found.name, key: relationship) }
                guard !r.relationship.isToMany else {
                    throw ImportError.shape("\(found.name).\(relationship) is a to-many relationship; a link names one object by its key")
                }
                guard store.mapping.entity(named: r.relationship.destinationEntityName)?.attribute(key) != nil else {
                    throw ImportError.unknownKey(entity: r.relationship.destinationEntityName, key: key)
                }
            }
        } else {
            entity = nil
            if format == .csv { throw ImportError.needsEntity }
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder.boolValue,
              FileManager.default.isReadableFile(atPath: file) else { throw ImportError.unreadable(path: file) }
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        guard size > 0 else { throw ImportError.empty(path: file) }
    }

    /// Whether the store syncs through NSPersistentCloudKitContainer.
    public var isMirrored: Bool { store.schema.table("ANSCKRECORDMETADATA") != nil }

    func objects() throws -> any IncomingObjects {
        switch format {
        case .json: return try JSONObjects(path: path, mapping: store.mapping, entity: entity)
        case .csv:
            guard let entity else { throw ImportError.needsEntity }
            return try CSVObjects(path: path, entity: entity)
        }
    }

    /// Imports the file. `progress` is called with the number of objects read so far, every
    /// few thousand, in each of the two passes (`pass` 1 and 2). The store is closed when it
    /// returns (its writer's coordinator closes it): an import is a command of its own.
    public func run(progress: (_ pass: Int, _ objects: Int) -> Void = { _, _ in }) throws -> ImportResult {
        if !options.ignoreOtherProcesses {
            let users = ProcessUse.others(using: [store.path, store.file.walPath, store.file.sharedMemoryPath])
            if !users.isEmpty { throw ImportError.storeInUse(path: store.path, users: users) }
        }
        if isMirrored && !options.allowMirrored { throw ImportError.mirrored(path: store.path) }
        // The first pass is needed when objects may name each other by ID, or an upsert
        // must find its matches before any reference to them; a CSV of plain rows goes
        // straight to the second (a fault in its text still rolls everything back).
        let first = try objects()
        let needsFirstPass = first.mayNameObjects || !options.upsertKeys.isEmpty
        first.close()
        let named = needsFirstPass ? try FileObjectIDs.read(self, progress: { progress(1, $0) }) : FileObjectIDs()
        let coordinator = Coordinator(store: store)
        defer { coordinator.close() }
        var result = ImportResult()
        var rejectedWithIDs = 0
        let external = ExternalDataFiles(storePath: store.path)
        do {
            try coordinator.write(files: external) { db in
                // A large import spills its pages into the -wal before it commits; a page
                // cache of 16 MB (SQLite's default is 2 MB) keeps most of them in memory.
                let cache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
                try db.execute(sql: "PRAGMA cache_size = -16384")
                defer { try? db.execute(sql: "PRAGMA cache_size = \(cache)") }
                var writer = try ImportWriter(db: db, store: store, options: options, named: named, external: external)
                var objects = try self.objects()
                defer { objects.close() }
                var count = 0
                while let object = try objects.next() {
                    // Checked every 256 objects: the check takes a lock.
                    if count & 255 == 0 { try Cancellation.check() }
                    count += 1
                    if count % 10_000 == 0 { progress(2, count) }
                    let mark = external.mark
                    do {
                        switch try writer.write(object, fileStoreUUID: objects.fileStoreUUID) {
                        case .inserted:
                            ImportResult.bump(object.entity.name, in: &result.inserted)
                            if let id = object.sourceID, (id.storeUUID ?? objects.fileStoreUUID).map({ $0 != store.uuid }) ?? false {
                                result.fromOtherStore += 1
                            }
                        case .updated: ImportResult.bump(object.entity.name, in: &result.updated)
                        case .unchanged: result.unchanged += 1
                        }
                        if !writer.keptDespite.isEmpty {
                            result.keptCount += 1
                            if result.kept.count < ImportResult.rejectionsKept {
                                result.kept.append(ImportKeptObject(position: object.position, key: object.sourceIDText, brokenRules: writer.keptDespite))
                            }
                        }
                    } catch let rejection as ImportWriter.Rejection {
                        external.discard(since: mark)
                        result.rejectedCount += 1
                        if object.sourceID != nil { rejectedWithIDs += 1 }
                        if result.rejections.count < ImportResult.rejectionsKept {
                            result.rejections.append(ImportRejection(position: object.position, key: rejection.key ?? object.sourceIDText,
                                                                     reason: rejection.why))
                        }
                    }
                }
                result.touched = try writer.finish()
                // Objects of the file may name a rejected one by its ID: writing the rest would
                // leave them pointing at a row that is not there, which the app would fault on.
                if options.mode == .skipInvalid && rejectedWithIDs > 0 { result.namedObjectsRejected = rejectedWithIDs }
                if options.dryRun || result.rejectedCount > 0 && (options.mode == .allOrNothing || rejectedWithIDs > 0) { throw Rollback() }
            }
            result.written = true
        } catch is Rollback {
            result.written = false
        }
        return result
    }

    /// Thrown out of the write transaction to roll it back when nothing may be written.
    private struct Rollback: Error {}
}

/// The object IDs a file gives its objects, by store UUID and entity, sorted: read in the
/// first pass so that the second can tell a relationship to an object of the file (written
/// under a new key) from one to an object of the store.
struct FileObjectIDs {
    /// By `UUID/Entity` (the UUID empty when an ID has none), the keys.
    var keys: [String: [Int64]] = [:]
    /// By `UUID/RootEntity`, the highest key: the keys an import takes from the root's counter.
    var highest: [String: Int64] = [:]
    /// Upserted objects' IDs in the file, by `UUID/Entity/pK`, and the key of the store
    /// object each updates (found in the first pass, so that an earlier reference to one
    /// leads to it).
    var matched: [String: Int64] = [:]
    /// With `--upsert objectID`, objects of this store whose keys no row holds, by
    /// `UUID/Entity/pK`: they are inserted under their own keys again.
    var kept: [String: Int64] = [:]

    static func read(_ importer: StoreImport, progress: (Int) -> Void) throws -> FileObjectIDs {
        var ids = FileObjectIDs()
        var objects = try importer.objects()
        defer { objects.close() }
        var count = 0
        let byObjectID = importer.options.matchesOwnObjectIDs
        let matcher = importer.options.upsertKeys.isEmpty || byObjectID ? nil : UpsertMatcher(store: importer.store, keys: importer.options.upsertKeys)
        var issued: [String: Int64] = [:]
        while let object = try objects.next() {
            if count & 255 == 0 { try Cancellation.check() }
            count += 1
            if count % 10_000 == 0 { progress(count) }
            guard let id = object.sourceID else { continue }
            let uuid = id.storeUUID ?? objects.fileStoreUUID ?? ""
            guard let named = importer.store.mapping.entity(named: id.entityName) else {
                throw ImportError.shape("the object ID \(object.sourceIDText ?? "") names \(id.entityName), which is not in the store's model")
            }
            ids.keys["\(uuid)/\(named.name)", default: []].append(id.primaryKey)
            let root = "\(uuid)/\(importer.store.mapping.rootEntity(of: named).name)"
            ids.highest[root] = max(ids.highest[root] ?? 0, id.primaryKey)
            if let existing = try matcher?.match(object) {
                ids.matched["\(uuid)/\(named.name)/\(id.primaryKey)"] = existing
            }
            if byObjectID, uuid == importer.store.uuid {
                switch try ObjectIDMatcher.match(named, key: id.primaryKey, store: importer.store, issued: &issued) {
                case .existing: ids.matched["\(uuid)/\(named.name)/\(id.primaryKey)"] = id.primaryKey
                case .free: ids.kept["\(uuid)/\(named.name)/\(id.primaryKey)"] = id.primaryKey
                case .other: break
                }
            }
        }
        for (name, keys) in ids.keys {
            let sorted = keys.sorted()
            for i in sorted.indices.dropFirst() where sorted[i] == sorted[i - 1] {
                throw ImportError.shape("the file holds the object \(name)/p\(sorted[i]) twice")
            }
            ids.keys[name] = sorted
        }
        return ids
    }

    func contains(_ uuid: String, _ entity: String, _ key: Int64) -> Bool {
        guard let keys = keys["\(uuid)/\(entity)"] else { return false }
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low < keys.count && keys[low] == key
    }
}

/// With `--upsert objectID`, what an object ID of this store names in it: an object of its
/// entity (updated), a key no row holds that the store has issued (inserted under it again),
/// or something else (a row of another entity, a key never issued: inserted under a new key).
enum ObjectIDMatcher {
    enum Match { case existing, free, other }

    static func match(_ entity: EntityMapping, key: Int64, store: PersistentStore, issued: inout [String: Int64]) throws -> Match {
        let root = store.mapping.rootEntity(of: entity)
        do {
            return try store.reader.read { db in
                if let row = try Row.fetchOne(db, sql: "SELECT Z_ENT FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ?", arguments: [key]) {
                    let stored: Int64? = row.lenient(0)
                    return stored.map { entity.entityIDs.contains(Int($0)) } == true ? .existing : .other
                }
                if issued[root.name] == nil {
                    issued[root.name] = try StoreWriter.keyCounter(of: root, db)
                }
                return key >= 1 && key <= (issued[root.name] ?? 0) ? .free : .other
            }
        } catch {
            throw StoreConnection.translate(error, file: store.file)
        }
    }
}

/// Finds the store object an incoming one updates, by the upsert keys, in the first pass
/// (on the store's reading connection: the objects of the file are not written yet).
struct UpsertMatcher {
    let store: PersistentStore
    let keys: [String]

    /// The key of the one store object the incoming one updates; nil when there is none, or
    /// when the match is a rejection (no key given, several matches), which the second pass
    /// reports where it writes.
    func match(_ object: IncomingObject) throws -> Int64? {
        guard let values = try? ImportWriter.keyValues(object, keys: keys) else { return nil }
        do {
            return try store.reader.read { db in
                try ImportWriter.findExisting(object.entity, keys: keys, values: values, db: db)?.key
            }
        } catch is ImportWriter.Rejection {
            return nil
        }
    }
}

import Foundation
import GRDB

/// Carries out a `MigrationPlan`: the destination store is created for the new model as
/// `create` lays it out (`StoreCreator`), and in that store's one creating transaction the
/// rows come across from the source, attached read-only: each entity's rows with the new
/// entity numbers, the join tables, `Z_PRIMARYKEY`'s counters, the persistent history, and
/// `Z_METADATA` with the source's UUID and keys and the new model's hashes. The new store gets
/// its name only once it is whole and synced.
///
/// In place, the migrated store is built beside the store the same way, the store is kept
/// as a snapshot, and the migrated pages go into the store in one write through its own
/// journal (SQLite's backup API, as `restore` does): a kill at any step leaves the store as
/// it was or as migrated.
public enum StoreMigration {
    public struct Outcome: Sendable {
        /// Rows written per destination entity, counted in the new store.
        public let rows: [(entity: String, count: Int64)]
        public let path: String
        /// The snapshot kept of the store before an in-place migration.
        public let kept: StoreSnapshot?
    }

    /// Writes the migrated store to `path`, which must not exist; external data files are
    /// copied beside it.
    public static func migrate(_ store: PersistentStore, plan: MigrationPlan, to path: String, disk: Disk = .system) throws -> Outcome {
        try refuse(plan)
        if FileManager.default.fileExists(atPath: path) { throw MigrationError.outputExists(path: path) }
        let external = StoreCompanions(storePath: store.path).externalData
        let newExternal = StoreCompanions(storePath: path).externalData
        // What a failed migration takes away again: only the folders it made.
        var made: [String] = []
        if FileManager.default.fileExists(atPath: external.path), !FileManager.default.fileExists(atPath: newExternal.path) {
            // The files first: a store that names them never exists without them.
            made = try disk.makeFolders(newExternal.deletingLastPathComponent().path) + [newExternal.path]
            try disk.copyFolder(external.path, to: newExternal.path)
        }
        do {
            try build(store, plan: plan, at: path, disk: disk)
        } catch {
            if let outermost = made.first { disk.removeTree(outermost) }
            throw error
        }
        return Outcome(rows: try counts(plan, at: path), path: path, kept: nil)
    }

    /// Migrates `store` where it is, after keeping it as the snapshot `keepName` in `keep`.
    public static func migrateInPlace(_ store: PersistentStore, plan: MigrationPlan, keepName: String, keep: URL,
                                      force: Bool, disk: Disk = .system) throws -> Outcome {
        try refuse(plan)
        if store.options.readonly { throw StoreError.readOnly(path: store.path) }
        let users = ProcessUse.others(using: [store.path, store.file.walPath, store.file.sharedMemoryPath])
        if !users.isEmpty && !force { throw SnapshotError.storeInUse(path: store.path, users: users) }
        let url = URL(fileURLWithPath: store.path)
        let folder = url.deletingLastPathComponent()
        let stem = ".\(url.lastPathComponent).migrating-"
        disk.clearRemains(in: folder, prefix: stem, marker: ".migrating-")
        let building = folder.appendingPathComponent(stem + "\(getpid())").path
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? disk.remove(building + suffix) } }
        try build(store, plan: plan, at: building, disk: disk)
        let kept = try StoreSnapshot.take(of: store, name: keepName, into: keep, disk: disk)
        do {
            try StoreRestore.copyRows(from: building, into: store)
        } catch {
            disk.removeTree(kept.folder.path)
            throw error
        }
        return Outcome(rows: try counts(plan, at: store.path), path: store.path, kept: kept)
    }

    static func refuse(_ plan: MigrationPlan) throws {
        if !plan.needsMappingModel.isEmpty {
            throw MigrationError.needsMappingModel(changes: plan.needsMappingModel.map { change in
                change.entity + (change.property.map { "." + $0 } ?? "") + ": " + change.detail
            })
        }
        if !plan.rejectedRows.isEmpty { throw MigrationError.rowsRejected(findings: plan.rejectedRows.map(\.detail)) }
    }

    private static func build(_ store: PersistentStore, plan: MigrationPlan, at path: String, disk: Disk) throws {
        var options = StoreCreator.Options()
        options.uuid = store.uuid
        options.persistentHistory = plan.carriesHistory
        options.wal = store.file.journalMode == .wal
        options.migrated = true
        let base = (store.metadata?.plist ?? []).map { (key: PropertyListValue.string($0.key), value: $0.value) }
        var filling = StoreCreator.Filling(sourcePath: store.path, fill: { db in try fill(db, plan: plan, store: store) }, metadataBase: base)
        filling.joins = plan.joins
        filling.renamedColumns = plan.renamedColumns
        if let alteration = plan.alteration {
            // Only additions: the store's own pages, altered.
            filling = StoreCreator.Filling(sourcePath: store.path, fill: { db in
                try alteration.apply(db)
                try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [try StoreCreator.metadataPlist(plan.destinationModel, options: options, base: base)])
                try db.execute(sql: "DELETE FROM Z_MODELCACHE")
                try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [try StoreCreator.modelCache(plan.destinationModel, classNames: false)])
            }, metadataBase: base, startsAsCopy: true)
        }
        try StoreCreator.create(at: path, model: plan.destinationModel, options: options, disk: disk, filling: filling)
    }

    /// The rows, in the destination's creating transaction, from the source attached as `src`.
    static func fill(_ db: Database, plan: MigrationPlan, store: PersistentStore) throws {
        for step in plan.entities {
            try Cancellation.check()
            guard let sourceTable = step.sourceTable, let sourceID = step.sourceID, step.rows > 0 else { continue }
            let columns = step.fills.map { SQL.identifier($0.column) }.joined(separator: ", ")
            let values = step.fills.map(\.expression).joined(separator: ", ")
            try db.execute(sql: "INSERT INTO main.\(SQL.identifier(step.table)) (\(columns)) SELECT \(values) FROM src.\(SQL.identifier(sourceTable)) AS x"
                           + (step.sourceHasEntityColumn ? " WHERE x.Z_ENT = \(sourceID)" : ""),
                           arguments: StatementArguments(step.fills.flatMap(\.arguments)))
        }
        for join in plan.joins where join.rows > 0 {
            try Cancellation.check()
            try db.execute(sql: "INSERT OR IGNORE INTO main.\(SQL.identifier(join.table)) (\(join.columns.map(SQL.identifier).joined(separator: ", "))) "
                           + join.select("src."))
        }
        try counters(db, plan: plan, store: store)
        if plan.carriesHistory { try history(db, plan: plan, store: store) }
    }

    /// `Z_PRIMARYKEY`: each root's last key handed out (never below the source's, nor below
    /// a key now in its table), and the source's name for a renamed entity.
    private static func counters(_ db: Database, plan: MigrationPlan, store: PersistentStore) throws {
        let oldMax = Dictionary(store.schema.primaryKeys.map { ($0.entityID, $0.max) }, uniquingKeysWith: max)
        let newByOld = plan.entityNumbers
        for entity in plan.layout.entities where entity.superentityName == nil {
            guard let id = entity.entityID else { continue }
            // The largest counter of the source roots whose rows are now in this table.
            let sources = entity.entityIDs.compactMap { newID in newByOld.first { $0.value == newID }?.key }
            let carried = sources.compactMap { oldID -> Int? in
                guard let e = store.mapping.entity(withID: oldID) else { return nil }
                return store.mapping.rootEntity(of: e).entityID.flatMap { oldMax[$0] }
            }.max() ?? 0
            let inTable = try Int.fetchOne(db, sql: "SELECT max(Z_PK) FROM main.\(SQL.identifier(entity.table))") ?? 0
            try db.execute(sql: "UPDATE main.Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [max(carried, inTable), id])
        }
        for (id, name) in plan.keptEntityNames {
            try db.execute(sql: "UPDATE main.Z_PRIMARYKEY SET Z_NAME = ? WHERE Z_ENT = ?", arguments: [name, id])
        }
    }

    /// Persistent history comes along: its strings and transactions as they are, its changes
    /// with the new entity numbers (the changes of an entity whose rows are dropped go too),
    /// each table's columns that both sides have.
    private static func history(_ db: Database, plan: MigrationPlan, store: PersistentStore) throws {
        let destination = try SchemaSnapshot.read(db)
        for table in ["ATRANSACTIONSTRING", "ATRANSACTION", "ACHANGE"] {
            guard let old = store.schema.table(table), let new = destination.table(table) else { continue }
            let columns = new.columns.map(\.name).filter { old.hasColumn($0) }
            let values = columns.map { $0 == "ZENTITY" ? MigrationPlan.Builder.renumbered("x.ZENTITY", plan.entityNumbers) : "x.\(SQL.identifier($0))" }
            try db.execute(sql: "INSERT INTO main.\(table) (\(columns.map(SQL.identifier).joined(separator: ", "))) SELECT "
                           + values.joined(separator: ", ") + " FROM src.\(table) AS x"
                           + (table == "ACHANGE" ? " WHERE (\(values[columns.firstIndex(of: "ZENTITY") ?? 0])) IS NOT NULL" : ""))
        }
        for row in store.schema.primaryKeys where row.entityID >= 16001 && row.entityID <= 16003 {
            try db.execute(sql: "UPDATE main.Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [row.max, row.entityID])
        }
    }

    /// Rows per destination entity in the store written.
    private static func counts(_ plan: MigrationPlan, at path: String) throws -> [(entity: String, count: Int64)] {
        let queue = try DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }())
        defer { try? queue.close() }
        return try queue.read { db in
            try plan.layout.entities.compactMap { e -> (String, Int64)? in
                guard let id = e.entityID, !e.isAbstract else { return nil }
                return (e.name, try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(e.table))"
                                                     + (e.entityColumn == nil ? "" : " WHERE Z_ENT = \(id)")) ?? 0)
            }
        }
    }
}

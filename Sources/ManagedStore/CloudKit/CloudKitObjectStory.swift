import GRDB

/// `cloudkit why`: the story of one object as the mirroring delegate sees it. Its record
/// metadata (record name, zone, flags), the history changes to it and whether each came
/// before or after the last export, the export events since its last change, and a verdict.
public struct CloudKitObjectStory: Sendable {
    public var entityName: String
    public var primaryKey: Int64
    /// Whether the row is in the store now.
    public var exists: Bool
    /// Its record metadata; nil when there is none.
    public var record: CloudKitMirroring.ObjectState?
    public var lastExportedToken: Int64?
    public var changes: [Change]
    /// Whether history holds its insert (if not, earlier changes were purged or predate history).
    public var historyHasInsert: Bool
    /// Saves its `Z_OPT` counts beyond what history records (nil when that cannot be judged).
    public var unrecordedSaves: Int64?
    /// Export events that started after its last change, in order.
    public var exportsSince: [CloudKitMirroring.Event]
    public var verdict: String

    public struct Change: Sendable, Equatable {
        public var token: Int64
        public var timestamp: Double?
        public var author: String?
        public var type: String
        public var properties: [String]?
        /// Whether the last export's token is at or past this change.
        public var exported: Bool?
    }

    public init(_ mirroring: CloudKitMirroring, entity: EntityMapping, primaryKey: Int64, _ db: Database) throws {
        let store = mirroring.store
        self.primaryKey = primaryKey
        var version: Int64?
        var ownEntity: EntityMapping = entity
        if let row = try Row.fetchOne(db, sql: "SELECT x.Z_ENT, " + (entity.versionColumn.map { "x.\(SQL.identifier($0))" } ?? "NULL")
                                      + " FROM \(SQL.identifier(entity.table)) x WHERE x.Z_PK = ?", arguments: [primaryKey]) {
            exists = true
            version = row.lenient(1)
            if let number: Int = row.lenient(0), let actual = store.mapping.entity(withID: number) { ownEntity = actual }
        } else {
            exists = false
        }
        entityName = ownEntity.name
        let entityIDs = ownEntity.entityID.map { [$0] } ?? entity.entityIDs
        record = try entityIDs.lazy.compactMap { try mirroring.object(entityID: $0, primaryKey: primaryKey, db) }.first
        lastExportedToken = try mirroring.lastExportedToken(db)

        var changes: [Change] = []
        var hasInsert = false
        let history = try? PersistentHistory(store: store)
        if let history {
            var query = HistoryQuery()
            query.object = (ownEntity, primaryKey)
            let exportedUpTo = lastExportedToken
            try history.changes(query, db) { transaction, change in
                if change.type == .insert { hasInsert = true }
                changes.append(Change(token: change.token, timestamp: transaction.timestamp, author: transaction.author,
                                      type: change.type?.name ?? "#\(change.storedType)", properties: change.updatedProperties,
                                      exported: exportedUpTo.map { change.token <= $0 }))
            }
        }
        self.changes = changes
        historyHasInsert = hasInsert
        if hasInsert, let version {
            let updates = Int64(changes.filter { $0.type == HistoryChangeType.update.name }.count)
            unrecordedSaves = max(0, version - 1 - updates)
        } else {
            unrecordedSaves = nil
        }
        let lastChange = changes.last?.timestamp
        exportsSince = try mirroring.events(db).filter { event in
            event.type == .export && (lastChange.map { (event.started ?? 0) >= $0 } ?? true)
        }
        verdict = Self.verdict(exists: exists, record: record, changes: changes, lastExportedToken: lastExportedToken,
                               unrecordedSaves: unrecordedSaves, exports: exportsSince, hasHistory: history != nil)
    }

    static func verdict(exists: Bool, record: CloudKitMirroring.ObjectState?, changes: [Change], lastExportedToken: Int64?,
                        unrecordedSaves: Int64?, exports: [CloudKitMirroring.Event], hasHistory: Bool) -> String {
        var parts: [String] = []
        let exportText = lastExportedToken.map { "the last export (\($0))" } ?? "the last export (no exported token is recorded)"
        if let last = changes.last {
            let after = lastExportedToken.map { last.token > $0 } ?? true
            parts.append("\(last.type == "delete" ? "deleted" : "changed") at token \(last.token), \(after ? "after" : "before") \(exportText)")
        } else if !hasHistory {
            parts.append("the store keeps no history, so no change to it can be exported")
        } else {
            parts.append("history holds no change to it")
        }
        if !exists && changes.last?.type != "delete" { parts.append("the row is not in the store") }
        if let record {
            var flags: [String] = []
            if record.needsUpload { flags.append("waits for upload") }
            if record.needsCloudDelete { flags.append("waits to be deleted in iCloud") }
            if record.needsLocalDelete { flags.append("waits to be deleted here after a delete in iCloud") }
            if let pending = record.pendingExportToken { flags.append("held by an export under way (token \(pending))") }
            parts.append("record \(record.recordName ?? "without a name")" + (record.zoneName.map { " in \($0)" } ?? "")
                         + (flags.isEmpty ? "" : ", " + flags.joined(separator: ", ")))
        } else if exists {
            parts.append("no record metadata: never exported")
        }
        if let n = unrecordedSaves, n > 0 {
            parts.append("saved \(n) more time(s) than history records: those saves are not exported (a write outside Core Data leaves this mark)")
        }
        let failed = exports.filter { $0.ended != nil && $0.succeeded == false }
        let succeeded = exports.filter { $0.ended != nil && $0.succeeded == true }
        if !exports.isEmpty {
            var text = "\(exports.count) export(s) since"
            if !failed.isEmpty {
                let errors = Array(Set(failed.map { $0.error?.description ?? "no error recorded" })).sorted()
                text += ", \(failed.count) failed with " + errors.joined(separator: ", ")
            }
            if !succeeded.isEmpty { text += ", \(succeeded.count) succeeded" }
            parts.append(text)
        } else if let last = changes.last, lastExportedToken.map({ last.token > $0 }) ?? true {
            parts.append("no export has started since")
        }
        return parts.joined(separator: "; ")
    }
}

import GRDB

/// "Why didn't it sync?", answered from the store: what the mirroring delegate last did,
/// what it has not yet exported, and what it never will. Each part comes from the rows
/// `NSPersistentCloudKitContainer` itself keeps (events, record metadata, the last history
/// token exported) and the store's persistent history, which is what the exporter reads:
/// a change history does not hold is a change CloudKit never hears of.
public struct CloudKitStatus: Sendable {
    public var lastExport: CloudKitMirroring.Event?
    public var lastSuccessfulExport: CloudKitMirroring.Event?
    public var lastImport: CloudKitMirroring.Event?
    public var lastSuccessfulImport: CloudKitMirroring.Event?
    /// Whether the store has an event table at all (macOS 10.15 stores do not).
    public var recordsEvents: Bool
    /// The history token the last export reached (nil: nothing was ever exported).
    public var lastExportedToken: Int64?
    public var backlog: Backlog
    public var pendingUploads: Int64
    public var pendingCloudDeletes: Int64
    public var pendingLocalDeletes: Int64
    public var neverExported: [ObjectGroup]
    public var unfinishedEvents: [CloudKitMirroring.Event]
    /// The newest failed events, newest first (at most `failureLimit`).
    public var failedEvents: [CloudKitMirroring.Event]
    public var failedEventCount: Int
    /// Objects saved more often than history records: changes the exporter never sees.
    public var unrecorded: [ObjectGroup]
    /// Objects of history-tracked entities whose insert history no longer holds, so that
    /// the check above could not judge them.
    public var unjudgedObjects: Int64

    public static let failureLimit = 5

    /// What history holds after the last exported token.
    public enum Backlog: Sendable, Equatable {
        /// The store keeps no persistent history (the exporter needs it: the app's store
        /// description must turn history tracking on).
        case noHistory
        /// History after the token was purged: the exporter cannot go on from it.
        case expired(token: Int64, oldest: Int64?)
        /// Changes committed after the token, by entity and author; the mirroring
        /// delegate's own imports are counted apart, since they are never exported again.
        case changes([PersistentHistory.Tally], imported: Int64)
    }

    public struct ObjectGroup: Sendable, Equatable {
        public var entityName: String
        public var count: Int64
        /// Up to five primary keys, for object IDs.
        public var examples: [Int64]
    }

    /// The transaction author of the mirroring delegate's imports.
    public static let importAuthor = "NSCloudKitMirroringDelegate.import"

    public init(_ mirroring: CloudKitMirroring, _ db: Database) throws {
        let store = mirroring.store
        let events = try mirroring.events(db)
        recordsEvents = mirroring.hasEvents
        func last(_ type: CloudKitEventType, succeeded: Bool? = nil) -> CloudKitMirroring.Event? {
            events.last { $0.type == type && (succeeded == nil || ($0.ended != nil && $0.succeeded == succeeded)) }
        }
        lastExport = last(.export)
        lastSuccessfulExport = last(.export, succeeded: true)
        lastImport = last(.import)
        lastSuccessfulImport = last(.import, succeeded: true)
        unfinishedEvents = events.filter { $0.ended == nil }
        let failed = events.filter { $0.ended != nil && $0.succeeded == false }
        failedEventCount = failed.count
        failedEvents = Array(failed.suffix(Self.failureLimit).reversed())

        lastExportedToken = try mirroring.lastExportedToken(db)
        let entities = try mirroring.entities(db)
        pendingUploads = entities.reduce(0) { $0 + $1.pendingUpload }
        pendingCloudDeletes = entities.reduce(0) { $0 + $1.pendingDelete }
        pendingLocalDeletes = entities.reduce(0) { $0 + $1.pendingLocalDelete }

        let mirrored = store.mapping.entities.filter {
            !$0.isAbstract && ($0.entityID ?? Int.max) < Self.firstAncillaryEntityID && store.schema.table($0.table) != nil
        }
        // Only metadata that names its object can tell which objects have none.
        let namesObjects = mirroring.objects.hasColumn("ZENTITYID") && mirroring.objects.hasColumn("ZENTITYPK")
        neverExported = try mirrored.compactMap { entity in
            guard namesObjects, let id = entity.entityID, entity.entityColumn != nil else { return nil }
            let missing = "FROM \(SQL.identifier(entity.table)) x WHERE x.Z_ENT = ? AND NOT EXISTS "
                + "(SELECT 1 FROM ANSCKRECORDMETADATA m WHERE m.ZENTITYID = ? AND m.ZENTITYPK = x.Z_PK)"
            let count = try Int64.fetchOne(db, sql: "SELECT count(*) " + missing, arguments: [id, id]) ?? 0
            guard count > 0 else { return nil }
            let examples = try Int64.fetchAll(db, sql: "SELECT x.Z_PK " + missing + " ORDER BY x.Z_PK LIMIT 5", arguments: [id, id])
            return ObjectGroup(entityName: entity.name, count: count, examples: examples)
        }

        guard let history = try? PersistentHistory(store: store) else {
            backlog = .noHistory
            unrecorded = []
            unjudgedObjects = 0
            return
        }
        do {
            let tallies = try history.tallies(after: lastExportedToken, db)
            let own = tallies.filter { ($0.author ?? "").hasPrefix("NSCloudKitMirroringDelegate") || $0.entityName.hasPrefix("#") }
            let imported = own.filter { $0.author == Self.importAuthor }.reduce(0) { $0 + $1.changes }
            backlog = .changes(tallies.filter { !own.contains($0) }, imported: imported)
        } catch HistoryError.tokenExpired(let token, let oldest) {
            backlog = .expired(token: token, oldest: oldest)
        }
        var unrecorded: [ObjectGroup] = []
        var unjudged: Int64 = 0
        let changed = try history.changedEntities(db)
        for entity in mirrored {
            guard let id = entity.entityID, let version = entity.versionColumn, entity.entityColumn != nil else { continue }
            guard changed.contains(Int64(id)) else {
                unjudged += try Int64.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.identifier(entity.table)) WHERE Z_ENT = ?", arguments: [id]) ?? 0
                continue
            }
            let found = try history.unrecordedSaves(entityID: id, table: entity.table, versionColumn: version, db)
            unjudged += found.unjudged
            if found.objects > 0 { unrecorded.append(ObjectGroup(entityName: entity.name, count: found.objects, examples: found.examples)) }
        }
        self.unrecorded = unrecorded
        unjudgedObjects = unjudged
    }

    /// Entity numbers from here on belong to Core Data's own ancillary models (history
    /// 16001…, CloudKit 17001…), not to the app.
    static let firstAncillaryEntityID = 16_000

    /// Changes after the last export that the exporter still has to send.
    public var unexportedChanges: Int64 {
        if case .changes(let tallies, _) = backlog { return tallies.reduce(0) { $0 + $1.changes } }
        return 0
    }

    /// The answer in one line.
    public var verdict: String {
        var problems: [String] = []
        if case .noHistory = backlog { problems.append("the store keeps no persistent history, which the exporter reads") }
        if case .expired(let token, _) = backlog {
            problems.append("history after the last exported token (\(token)) was purged, so the exporter cannot go on from it")
        }
        if let failure = failedEvents.first, lastSuccessfulExport.map({ ($0.ended ?? 0) < (failure.ended ?? 0) }) ?? true {
            problems.append("the last \(failure.type) failed with \(failure.error?.description ?? "no error recorded")")
        }
        let unrecordedCount = unrecorded.reduce(0) { $0 + $1.count }
        if unrecordedCount > 0 { problems.append("\(unrecordedCount) object(s) were saved without a history record and will not export those saves") }
        let never = neverExported.reduce(0) { $0 + $1.count }
        if never > 0 { problems.append("\(never) object(s) have never been exported") }
        if unexportedChanges > 0 { problems.append("\(unexportedChanges) change(s) wait for the next export") }
        if pendingUploads + pendingCloudDeletes > 0 {
            problems.append("\(pendingUploads) upload(s) and \(pendingCloudDeletes) cloud delete(s) are pending")
        }
        if lastSuccessfulExport == nil && lastExportedToken == nil { problems.insert("nothing has ever been exported", at: 0) }
        return problems.isEmpty ? "in sync: everything history holds was exported, and no export failed since" : problems.joined(separator: "; ")
    }
}

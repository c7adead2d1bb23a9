import Foundation
import GRDB

/// The state `NSPersistentCloudKitContainer` keeps in a mirrored store (the `ANSCK…` tables
/// of its ancillary model): a metadata row per mirrored object, the record zones and their
/// databases, the setup/import/export events, a key/value table and the many-to-many
/// relationships it mirrors as records of their own. The table set changed between OS
/// versions (11 tables on macOS 10.15, 18 on current systems), so every column is optional:
/// one the store lacks reads as NULL and an extra one is ignored. The tables may live only
/// in the `-wal`; they are read through SQLite, which sees them there.
public struct CloudKitMirroring {
    public let store: PersistentStore
    let objects: SchemaSnapshot.Table
    let zones: SchemaSnapshot.Table?
    let databases: SchemaSnapshot.Table?
    let events: SchemaSnapshot.Table?
    let entries: SchemaSnapshot.Table?
    let relationships: SchemaSnapshot.Table?

    public init(store: PersistentStore) throws {
        guard let objects = store.schema.table("ANSCKRECORDMETADATA") else { throw CloudKitError.notMirrored(path: store.path) }
        self.store = store
        self.objects = objects
        zones = store.schema.table("ANSCKRECORDZONEMETADATA")
        databases = store.schema.table("ANSCKDATABASEMETADATA")
        events = store.schema.table("ANSCKEVENT")
        entries = store.schema.table("ANSCKMETADATAENTRY")
        relationships = store.schema.table("ANSCKMIRROREDRELATIONSHIP")
    }

    public struct Zone: Sendable, Equatable {
        public var name: String?
        public var owner: String?
        /// `CKDatabase.Scope` raw value (1 public, 2 private, 3 shared): the zone's database
        /// row's `ZDATABASESCOPENUM`, or a scope column of the zone's own in stores without one.
        public var scope: Int64?
        public var objects: Int64
    }

    public struct EntityState: Sendable, Equatable {
        public var entityName: String
        public var mirrored: Int64
        public var pendingUpload: Int64
        public var pendingDelete: Int64
        public var pendingLocalDelete: Int64
    }

    public struct ObjectState: Sendable, Equatable {
        public var entityName: String
        public var primaryKey: Int64
        public var recordName: String?
        public var zoneName: String?
        public var needsUpload: Bool
        public var needsCloudDelete: Bool
        public var needsLocalDelete: Bool
        /// The history token (`ATRANSACTION.Z_PK`) of the last change exported.
        public var lastExportedToken: Int64?
        /// The change an export under way holds: its token and change type.
        public var pendingExportToken: Int64?
        public var pendingExportChangeType: Int64?
    }

    public struct Event: Sendable, Equatable {
        public var number: Int64
        public var type: CloudKitEventType
        public var started: Double?
        /// NULL while the event runs, and for ever when the process ended first.
        public var ended: Double?
        public var succeeded: Bool?
        public var error: SyncError?
        public var affectedObjects: Int64?
        public var finishedObjects: Int64?
    }

    /// A row of the mirroring delegate's key/value table: the value from whichever of the
    /// typed columns holds it (archived values decoded).
    public struct MetadataEntry: Sendable, Equatable {
        public var key: String
        public var value: ArchivedValue
    }

    /// A many-to-many relationship pair mirrored as a `CDMR` record.
    public struct MirroredRelationship: Sendable, Equatable {
        public var recordName: String?
        public var zoneName: String?
        public var entityName: String?
        public var relationshipName: String?
        public var recordNameOfObject: String?
        public var relatedEntityName: String?
        public var relatedRecordName: String?
        public var isUploaded: Bool
        public var isPending: Bool
        public var needsDelete: Bool
    }

    public func zones(_ db: Database) throws -> [Zone] {
        guard let zones else { return [] }
        let ownScope = zones.columns.first { $0.name.uppercased().contains("SCOPE") }.map { "z.\(SQL.identifier($0.name))" } ?? "NULL"
        var scope = ownScope
        if let databases, databases.hasColumn("ZDATABASESCOPENUM"), zones.hasColumn("ZDATABASE") {
            scope = "coalesce((SELECT d.ZDATABASESCOPENUM FROM ANSCKDATABASEMETADATA d WHERE d.Z_PK = z.ZDATABASE), \(ownScope))"
        }
        let counted = objects.hasColumn("ZRECORDZONE") ? "(SELECT count(*) FROM ANSCKRECORDMETADATA m WHERE m.ZRECORDZONE = z.Z_PK)" : "0"
        let sql = "SELECT \(zones.select("ZCKRECORDZONENAME", "z")), \(zones.select("ZCKOWNERNAME", "z")), \(scope), \(counted) "
            + "FROM \(SQL.identifier(zones.name)) z ORDER BY z.Z_PK"
        return try Row.fetchAll(db, sql: sql).map {
            Zone(name: $0.lenient(0), owner: $0.lenient(1), scope: $0.lenient(2), objects: $0.lenient(3) ?? 0)
        }
    }

    /// Per entity (its own rows, by `ZENTITYID`): mirrored objects, and those waiting to be
    /// uploaded, deleted in iCloud, or deleted here after a delete in iCloud.
    public func entities(_ db: Database) throws -> [EntityState] {
        let sql = "SELECT \(objects.select("ZENTITYID", "m")), count(*), "
            + ["ZNEEDSUPLOAD", "ZNEEDSCLOUDDELETE", "ZNEEDSLOCALDELETE"].map { "total(\(objects.select($0, "m")) != 0)" }.joined(separator: ", ")
            + " FROM ANSCKRECORDMETADATA m GROUP BY 1 ORDER BY 1"
        return try Row.fetchAll(db, sql: sql).map { row in
            let number: Int64? = row.lenient(0)
            return EntityState(entityName: entityName(number), mirrored: row.lenient(1) ?? 0,
                               pendingUpload: Int64(row.lenient(2) ?? 0.0), pendingDelete: Int64(row.lenient(3) ?? 0.0),
                               pendingLocalDelete: Int64(row.lenient(4) ?? 0.0))
        }
    }

    /// One row per mirrored object, of one entity (sub-entities included) and, with a
    /// predicate, only objects whose row matches it.
    public func objects(entity: EntityMapping?, predicate: Predicate?, predicateText: String, _ db: Database,
                        _ body: (ObjectState) throws -> Void) throws {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let entity {
            conditions.append("m.ZENTITYID IN (\(entity.entityIDs.map(String.init).joined(separator: ", ")))")
            if predicate != nil {
                let (condition, _) = try BatchCondition.make(predicate, text: predicateText, entity: entity, mapping: store.mapping)
                if let condition {
                    conditions.append("m.ZENTITYPK IN (SELECT t0.Z_PK FROM \(SQL.identifier(entity.table)) t0 WHERE " + condition.sql + ")")
                    arguments += condition.arguments
                }
            }
        }
        let sql = objectSelect + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")) + " ORDER BY 1, 2"
        let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
        while let row = try rows.next() {
            try Cancellation.check()
            try body(objectState(row))
        }
    }

    /// The metadata row of one object; nil when it has none (never exported, or imported
    /// and not yet linked).
    public func object(entityID: Int, primaryKey: Int64, _ db: Database) throws -> ObjectState? {
        try Row.fetchOne(db, sql: objectSelect + " WHERE m.ZENTITYID = ? AND m.ZENTITYPK = ?", arguments: [entityID, primaryKey]).map(objectState)
    }

    /// The name of the zone a row of `table` (aliased `alias`) is in, or NULL where the store
    /// has no zone table or no column to find it by.
    private func zoneName(of table: SchemaSnapshot.Table, _ alias: String) -> String {
        guard zones?.hasColumn("ZCKRECORDZONENAME") == true, table.hasColumn("ZRECORDZONE") else { return "NULL" }
        return "(SELECT z.ZCKRECORDZONENAME FROM ANSCKRECORDZONEMETADATA z WHERE z.Z_PK = \(alias).ZRECORDZONE)"
    }

    private var objectSelect: String {
        let zone = zoneName(of: objects, "m")
        return "SELECT " + ["ZENTITYID", "ZENTITYPK", "ZCKRECORDNAME"].map { objects.select($0, "m") }.joined(separator: ", ")
            + ", \(zone), "
            + ["ZNEEDSUPLOAD", "ZNEEDSCLOUDDELETE", "ZNEEDSLOCALDELETE", "ZLASTEXPORTEDTRANSACTIONNUMBER",
               "ZPENDINGEXPORTTRANSACTIONNUMBER", "ZPENDINGEXPORTCHANGETYPENUMBER"].map { objects.select($0, "m") }.joined(separator: ", ")
            + " FROM ANSCKRECORDMETADATA m"
    }

    private func objectState(_ row: Row) -> ObjectState {
        func flag(_ i: Int) -> Bool { (row.lenient(i, as: Int64.self) ?? 0) != 0 }
        return ObjectState(entityName: entityName(row.lenient(0)), primaryKey: row.lenient(1) ?? 0, recordName: row.lenient(2),
                           zoneName: row.lenient(3), needsUpload: flag(4), needsCloudDelete: flag(5), needsLocalDelete: flag(6),
                           lastExportedToken: row.lenient(7), pendingExportToken: row.lenient(8), pendingExportChangeType: row.lenient(9))
    }

    /// Events in the order they started; `after` skips those up to that row number.
    public func events(after number: Int64? = nil, _ db: Database) throws -> [Event] {
        guard let select = eventSelect else { return [] }
        let sql = select + (number == nil ? "" : " WHERE e.Z_PK > ?") + " ORDER BY 3, e.Z_PK"
        return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(number.map { [$0] } ?? [])).map(event)
    }

    /// These events as they are now (for following one from its start to its end).
    public func events(numbered numbers: [Int64], _ db: Database) throws -> [Event] {
        guard let select = eventSelect, !numbers.isEmpty else { return [] }
        let sql = select + " WHERE e.Z_PK IN (\(numbers.map(String.init).joined(separator: ", "))) ORDER BY e.Z_PK"
        return try Row.fetchAll(db, sql: sql).map(event)
    }

    /// The event columns `event(_:)` reads, from `ANSCKEVENT e`; nil for a store without one.
    private var eventSelect: String? {
        guard let events else { return nil }
        let columns = ["ZCLOUDKITEVENTTYPE", "ZSTARTEDAT", "ZENDEDAT", "ZSUCCEEDED", "ZERRORDOMAIN", "ZERRORCODE",
                       "ZCOUNTAFFECTEDOBJECTS", "ZCOUNTFINISHEDOBJECTS"]
        return "SELECT e.Z_PK, " + columns.map { events.select($0, "e") }.joined(separator: ", ") + " FROM \(SQL.identifier(events.name)) e"
    }

    private func event(_ row: Row) -> Event {
        let type: Int64? = row.lenient(1)
        let succeeded: Int64? = row.lenient(4)
        let domain: String? = row.lenient(5)
        let code: Int64? = row.lenient(6)
        let error = domain.map { SyncError(domain: $0, code: code ?? 0) } ?? code.flatMap { $0 == 0 ? nil : SyncError(domain: "", code: $0) }
        return Event(number: row.lenient(0) ?? 0, type: CloudKitEventType(type), started: row.lenient(2), ended: row.lenient(3),
                     succeeded: succeeded.map { $0 != 0 }, error: error, affectedObjects: row.lenient(7), finishedObjects: row.lenient(8))
    }

    public var hasEvents: Bool { events != nil }

    /// The key/value rows, by key.
    public func metadataEntries(_ db: Database) throws -> [MetadataEntry] {
        guard let entries else { return [] }
        let sql = "SELECT " + ["ZKEY", "ZBOOLVALUENUM", "ZINTEGERVALUE", "ZSTRINGVALUE", "ZDATEVALUE", "ZTRANSFORMEDVALUE"]
            .map { entries.select($0, "e") }.joined(separator: ", ") + " FROM ANSCKMETADATAENTRY e ORDER BY 1"
        return try Row.fetchAll(db, sql: sql).map { row in
            let value: ArchivedValue
            if let b: Int64 = row.lenient(1) {
                value = .bool(b != 0)
            } else if let i: Int64 = row.lenient(2) {
                value = .integer(i)
            } else if let s: String = row.lenient(3) {
                value = .string(s)
            } else if let d: Double = row.lenient(4) {
                value = .date(d)
            } else if let data: Data = row.lenient(5) {
                value = (try? KeyedUnarchiver.value(of: [UInt8](data))) ?? .data([UInt8](data))
            } else {
                value = .null
            }
            return MetadataEntry(key: row.lenient(0) ?? "", value: value)
        }
    }

    /// The key under which the mirroring delegate keeps the history token of its last export.
    public static let lastHistoryTokenKey = "NSCloudKitMirroringDelegateLastHistoryTokenKey"

    /// The history token the last export reached: the archived `NSPersistentHistoryToken`
    /// under `NSCloudKitMirroringDelegateLastHistoryTokenKey`, which maps store identifiers
    /// to transaction numbers. The archive's key names are not in any document, so this
    /// takes the number filed under this store's UUID, else the only number in it.
    public func lastExportedToken(_ db: Database) throws -> Int64? {
        guard let entry = try metadataEntries(db).first(where: { $0.key == Self.lastHistoryTokenKey }) else { return nil }
        return Self.transactionNumber(in: entry.value, storeUUID: store.uuid)
    }

    static func transactionNumber(in value: ArchivedValue, storeUUID: String) -> Int64? {
        var numbers: [(key: String?, value: Int64)] = []
        func walk(_ v: ArchivedValue, key: String?) {
            switch v {
            case .integer(let i): numbers.append((key, i))
            case .array(let items): items.forEach { walk($0, key: key) }
            case .dictionary(let entries), .object(_, let entries): entries.forEach { walk($0.value, key: $0.key) }
            default: break
            }
        }
        walk(value, key: nil)
        if let own = numbers.first(where: { $0.key?.caseInsensitiveCompare(storeUUID) == .orderedSame }) { return own.value }
        let distinct = Set(numbers.map(\.value))
        return distinct.count == 1 ? distinct.first : nil
    }

    /// Mirrored many-to-many pairs, in row order.
    public func mirroredRelationships(_ db: Database, _ body: (MirroredRelationship) throws -> Void) throws {
        guard let relationships else { return }
        let sql = "SELECT " + relationships.select("ZCKRECORDID", "r") + ", \(zoneName(of: relationships, "r")), "
            + ["ZCDENTITYNAME", "ZRELATIONSHIPNAME", "ZRECORDNAME", "ZRELATEDENTITYNAME", "ZRELATEDRECORDNAME",
               "ZISUPLOADED", "ZISPENDING", "ZNEEDSDELETE"].map { relationships.select($0, "r") }.joined(separator: ", ")
            + " FROM ANSCKMIRROREDRELATIONSHIP r ORDER BY r.Z_PK"
        let rows = try Row.fetchCursor(db, sql: sql)
        while let row = try rows.next() {
            try Cancellation.check()
            func flag(_ i: Int) -> Bool { (row.lenient(i, as: Int64.self) ?? 0) != 0 }
            try body(MirroredRelationship(recordName: row.lenient(0), zoneName: row.lenient(1), entityName: row.lenient(2),
                                          relationshipName: row.lenient(3), recordNameOfObject: row.lenient(4),
                                          relatedEntityName: row.lenient(5), relatedRecordName: row.lenient(6),
                                          isUploaded: flag(7), isPending: flag(8), needsDelete: flag(9)))
        }
    }

    func entityName(_ number: Int64?) -> String {
        guard let number else { return "NULL" }
        return Int(exactly: number).flatMap { store.mapping.entity(withID: $0)?.name } ?? "#\(number)"
    }
}

import Foundation
import GRDB

/// The state `NSPersistentCloudKitContainer` keeps in a mirrored store
/// (reference/persistent-history.md, "CloudKit mirroring"): a metadata row per mirrored
/// object, the record zones, and the setup/import/export events. No genuine mirrored store
/// is among the fixtures, so every column is optional here: one the store lacks reads as
/// NULL, and extra ones are ignored.
public struct CloudKitMirroring {
    public let store: PersistentStore
    let objects: SchemaSnapshot.Table
    let zones: SchemaSnapshot.Table?
    let events: SchemaSnapshot.Table?

    public init(store: PersistentStore) throws {
        guard let objects = store.schema.table("ANSCKRECORDMETADATA") else { throw CloudKitError.notMirrored(path: store.path) }
        self.store = store
        self.objects = objects
        zones = store.schema.table("ANSCKRECORDZONEMETADATA")
        events = store.schema.table("ANSCKEVENT")
    }

    public struct Zone: Sendable, Equatable {
        public var name: String?
        public var owner: String?
        /// `CKDatabase.Scope` raw value as stored (1 public, 2 private, 3 shared).
        public var scope: Int64?
        public var objects: Int64
    }

    public struct EntityState: Sendable, Equatable {
        public var entityName: String
        public var mirrored: Int64
        public var pendingUpload: Int64
        public var pendingDelete: Int64
    }

    public struct ObjectState: Sendable, Equatable {
        public var entityName: String
        public var primaryKey: Int64
        public var recordName: String?
        public var zoneName: String?
        public var needsUpload: Bool
        public var needsCloudDelete: Bool
        public var lastExportedToken: Int64?
    }

    public struct Event: Sendable, Equatable {
        /// `NSPersistentCloudKitContainer.EventType` by its raw value (setup 0, import 1,
        /// export 2); another number is shown as `#N`.
        public var type: String
        public var started: Double?
        public var ended: Double?
        public var succeeded: Bool?
        public var errorDomain: String?
        public var errorCode: Int64?
    }

    public func zones(_ db: Database) throws -> [Zone] {
        guard let zones else { return [] }
        let scope = zones.columns.first { $0.name.uppercased().contains("SCOPE") }.map { "z.\(SQL.identifier($0.name))" } ?? "NULL"
        let counted = objects.hasColumn("ZRECORDZONE") ? "(SELECT count(*) FROM ANSCKRECORDMETADATA m WHERE m.ZRECORDZONE = z.Z_PK)" : "0"
        let sql = "SELECT \(zones.select("ZCKRECORDZONENAME", "z")), \(zones.select("ZCKOWNERNAME", "z")), \(scope), \(counted) "
            + "FROM \(SQL.identifier(zones.name)) z ORDER BY z.Z_PK"
        return try Row.fetchAll(db, sql: sql).map {
            Zone(name: $0.lenient(0), owner: $0.lenient(1), scope: $0.lenient(2), objects: $0.lenient(3) ?? 0)
        }
    }

    /// Per entity (its own rows, by `ZENTITYID`): mirrored objects, and those waiting to be
    /// uploaded or deleted in iCloud.
    public func entities(_ db: Database) throws -> [EntityState] {
        let sql = "SELECT \(objects.select("ZENTITYID", "m")), count(*), "
            + "total(\(objects.select("ZNEEDSUPLOAD", "m")) != 0), total(\(objects.select("ZNEEDSCLOUDDELETE", "m")) != 0) "
            + "FROM ANSCKRECORDMETADATA m GROUP BY 1 ORDER BY 1"
        return try Row.fetchAll(db, sql: sql).map { row in
            let number: Int64? = row.lenient(0)
            return EntityState(entityName: entityName(number), mirrored: row.lenient(1) ?? 0,
                               pendingUpload: Int64(row.lenient(2) ?? 0.0), pendingDelete: Int64(row.lenient(3) ?? 0.0))
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
        let zone = zones != nil && objects.hasColumn("ZRECORDZONE") && zones?.hasColumn("ZCKRECORDZONENAME") == true
            ? "(SELECT z.ZCKRECORDZONENAME FROM ANSCKRECORDZONEMETADATA z WHERE z.Z_PK = m.ZRECORDZONE)" : "NULL"
        let sql = "SELECT \(objects.select("ZENTITYID", "m")), \(objects.select("ZENTITYPK", "m")), "
            + "\(objects.select("ZCKRECORDNAME", "m")), \(zone), \(objects.select("ZNEEDSUPLOAD", "m")), "
            + "\(objects.select("ZNEEDSCLOUDDELETE", "m")), \(objects.select("ZLASTEXPORTEDTRANSACTIONNUMBER", "m")) "
            + "FROM ANSCKRECORDMETADATA m" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY 1, 2"
        let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
        while let row = try rows.next() {
            try Cancellation.check()
            let upload: Int64? = row.lenient(4), delete: Int64? = row.lenient(5)
            try body(ObjectState(entityName: entityName(row.lenient(0)), primaryKey: row.lenient(1) ?? 0, recordName: row.lenient(2),
                                 zoneName: row.lenient(3), needsUpload: (upload ?? 0) != 0, needsCloudDelete: (delete ?? 0) != 0,
                                 lastExportedToken: row.lenient(6)))
        }
    }

    public func events(_ db: Database) throws -> [Event] {
        guard let events else { return [] }
        let sql = "SELECT " + ["ZCLOUDKITEVENTTYPE", "ZSTARTEDAT", "ZENDEDAT", "ZSUCCEEDED", "ZERRORDOMAIN", "ZERRORCODE"]
            .map { events.select($0, "e") }.joined(separator: ", ") + " FROM \(SQL.identifier(events.name)) e ORDER BY 2, e.Z_PK"
        return try Row.fetchAll(db, sql: sql).map { row in
            let type: Int64? = row.lenient(0)
            let succeeded: Int64? = row.lenient(3)
            return Event(type: type.map(CloudKitMirroring.eventTypeName) ?? "NULL", started: row.lenient(1), ended: row.lenient(2),
                         succeeded: succeeded.map { $0 != 0 }, errorDomain: row.lenient(4), errorCode: row.lenient(5))
        }
    }

    /// The public `NSPersistentCloudKitContainer.EventType` raw values. Unconfirmed against a
    /// genuine store (there is none in the fixtures): an unknown number shows as `#N`.
    static func eventTypeName(_ number: Int64) -> String {
        switch number {
        case 0: return "setup"
        case 1: return "import"
        case 2: return "export"
        default: return "#\(number)"
        }
    }

    private func entityName(_ number: Int64?) -> String {
        guard let number else { return "NULL" }
        return Int(exactly: number).flatMap { store.mapping.entity(withID: $0)?.name } ?? "#\(number)"
    }

}

public enum CloudKitError: Error, CustomStringConvertible, Equatable {
    case notMirrored(path: String)

    public var description: String {
        switch self {
        case .notMirrored(let path):
            return "\(path) is not mirrored to CloudKit (it has no ANSCKRECORDMETADATA table: the app does not use NSPersistentCloudKitContainer)"
        }
    }
}

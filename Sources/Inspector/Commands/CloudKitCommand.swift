import ArgumentParser
import ManagedStore

public struct CloudKitCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cloudkit",
        abstract: "Show the CloudKit mirroring state of a store NSPersistentCloudKitContainer mirrors.",
        discussion: """
            'cloudkit' lists, per entity, the objects mirrored and those waiting to be uploaded or deleted in iCloud. \
            'cloudkit zones': each record zone (name, owner, database scope: 1 public, 2 private, 3 shared) and its \
            objects. 'cloudkit objects [ENTITY] [--where P]': one row per mirrored object (object ID, CloudKit \
            record name, zone, whether it needs upload or cloud delete, the last history token exported). \
            'cloudkit events': setup, import and export events with their times, success and error. Read from the \
            ANSCK… tables; columns a store lacks show as NULL.
            """)

    @Argument(help: ArgumentHelp("entities (the default), zones, objects or events.", valueName: "view"))
    public var view: String = "entities"
    @Argument(help: "For objects: the entity (with its sub-entities).")
    public var entity: String?
    @OptionGroup public var predicate: PredicateOptions
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        let views = ["entities", "zones", "objects", "events"]
        guard views.contains(view) else { throw CommandError.usage("cloudkit shows \(views.joined(separator: ", ")), not '\(view)'") }
        if entity != nil && view != "objects" { throw CommandError.usage("only 'cloudkit objects' takes an entity") }
        if self.predicate.where != nil && entity == nil { throw CommandError.usage("--where needs an ENTITY: cloudkit objects ENTITY --where P") }
        let mirroring = try CloudKitMirroring(store: store)
        let format = session.format(output.format)
        try store.read { db in
            switch view {
            case "zones":
                let writer = RowWriter(columns: ["zone", "owner", "scope", "objects"], format: format, sink: session.output)
                for zone in try mirroring.zones(db) {
                    writer.row([HistoryRows.text(zone.name), HistoryRows.text(zone.owner), zone.scope.map(OutputValue.integer) ?? .null,
                                .integer(zone.objects)])
                }
                writer.finish()
            case "objects":
                let writer = RowWriter(columns: ["objectID", "recordName", "zone", "needsUpload", "needsCloudDelete", "lastExportedToken"],
                                       format: format, sink: session.output)
                let predicate = try self.predicate.predicate(warn: session.warn)
                try mirroring.objects(entity: try entity.map(store.entity), predicate: predicate, predicateText: self.predicate.text, db) { o in
                    writer.row([.objectURI(prefix: ObjectID.uriPrefix(storeUUID: store.uuid, entityName: o.entityName), key: o.primaryKey),
                                HistoryRows.text(o.recordName), HistoryRows.text(o.zoneName), .bool(o.needsUpload), .bool(o.needsCloudDelete),
                                o.lastExportedToken.map(OutputValue.integer) ?? .null])
                }
                writer.finish()
            case "events":
                let writer = RowWriter(columns: ["type", "started", "ended", "succeeded", "errorDomain", "errorCode"], format: format, sink: session.output)
                for e in try mirroring.events(db) {
                    writer.row([.string(e.type), e.started.map(OutputValue.date) ?? .null, e.ended.map(OutputValue.date) ?? .null,
                                e.succeeded.map(OutputValue.bool) ?? .null, HistoryRows.text(e.errorDomain), e.errorCode.map(OutputValue.integer) ?? .null])
                }
                writer.finish()
            default:
                let writer = RowWriter(columns: ["entity", "mirrored", "pendingUpload", "pendingDelete"], format: format, sink: session.output)
                for e in try mirroring.entities(db) {
                    writer.row([.string(e.entityName), .integer(e.mirrored), .integer(e.pendingUpload), .integer(e.pendingDelete)])
                }
                writer.finish()
            }
        }
    }
}

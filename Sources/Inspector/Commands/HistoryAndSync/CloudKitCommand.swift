import ArgumentParser
import Foundation
import ManagedStore

public struct CloudKitCommand: SessionCommand {
    public static let traits = CommandTraits(group: .historyAndSync, tool: tool, views: views)

    public static let configuration = CommandConfiguration(
        commandName: "cloudkit",
        abstract: "Why didn't it sync? The CloudKit mirroring state of a store NSPersistentCloudKitContainer mirrors.",
        discussion: """
            'cloudkit' (or 'cloudkit status') answers for the whole store: when it last exported and imported, the \
            history token the last export reached, the changes committed after it (by entity and author) that wait \
            for the next export, pending uploads and deletes, objects never exported (no record metadata), events \
            that started and never ended, the last failed events with their error named and explained, and objects \
            saved more often than history records (the exporter reads history, so those saves are never sent; a \
            write outside Core Data, such as plain SQL, leaves this mark), then a verdict. \
            'cloudkit why OBJECT': the story of one object (Entity/pN or its URI): record name, zone and flags, the \
            history changes to it and whether each came before or after the last export, the export events since \
            and how they ended, and a verdict in one line. \
            'cloudkit check [MODEL]': the model (the store's, the one --model gives, or the MODEL file: an .xcdatamodeld, \
            .xcdatamodel or contents file) \
            against CloudKit's rules, which Core Data enforces only when the app loads: every attribute optional or \
            with a default, no uniqueness constraints, every relationship optional and with an inverse, no Deny \
            delete rule, no ordered relationships, no Undefined or Object ID attributes, no names Core Data's own \
            record fields take; one line per violation, exit 1 when there is any. \
            'cloudkit events [--follow]': setup, import and export events (type, times, success, error, objects); \
            with --follow, each event as it starts and ends while the app runs, holding nothing of the store between \
            looks (Ctrl-C, --limit or --timeout end it). \
            'cloudkit entities': per entity, the objects mirrored and those waiting to be uploaded or deleted. \
            'cloudkit zones': each record zone with its owner, database scope (1 public, 2 private, 3 shared) and \
            objects. 'cloudkit objects [ENTITY] [--where P]': one row per mirrored object. 'cloudkit metadata': the \
            mirroring delegate's key/value table. 'cloudkit relationships': many-to-many relationships mirrored as \
            CDMR records. Read from the ANSCK… tables (in the -wal too); a column a store lacks shows as NULL, an \
            unknown event type or error code as its number.
            """)

    @Argument(help: ArgumentHelp("status (the default), why, check, events, entities, zones, objects, metadata or relationships.",
                                 valueName: "view"), completion: .list(CloudKitCommand.views))
    public var view: String = "status"
    @Argument(help: ArgumentHelp("For objects: the entity (with its sub-entities). For why: the object (Entity/pN or its URI). For check: a model file to check instead of the store's.",
                                 valueName: "target"))
    public var target: String?
    @OptionGroup public var predicate: PredicateOptions
    @Flag(name: .long, help: "For events: print each event as it starts and ends, until Ctrl-C.")
    public var follow = false
    @Option(name: .long, parsing: .unconditional, help: "For events --follow: stop after N lines.", transform: ObjectCount.parse)
    public var limit: Int?
    @Option(name: .long, help: ArgumentHelp("For events --follow: stop after this many seconds.", valueName: "seconds"),
            transform: Seconds.parse)
    public var timeout: Double?
    @OptionGroup public var output: FormatOption

    public init() {}

    static let views = ["status", "why", "check", "events", "entities", "zones", "objects", "metadata", "relationships"]

    public func run(in session: Session) throws {
        guard Self.views.contains(view) else {
            throw CommandError.usage("cloudkit shows \(Self.views.joined(separator: ", ")), not '\(view)'")
        }
        if target != nil && !["objects", "why", "check"].contains(view) {
            throw CommandError.usage("only 'cloudkit objects', 'cloudkit why' and 'cloudkit check' take a target")
        }
        if predicate.where != nil && (view != "objects" || target == nil) {
            throw CommandError.usage("--where needs an ENTITY: cloudkit objects ENTITY --where P")
        }
        if (follow || limit != nil || timeout != nil) && view != "events" { throw CommandError.usage("--follow, --limit and --timeout belong to 'cloudkit events'") }
        if (limit != nil || timeout != nil) && !follow { throw CommandError.usage("--limit and --timeout need --follow") }
        if view == "check" { return try check(session) }
        let store = session.store
        let mirroring = try CloudKitMirroring(store: store)
        let results = session.results(output)
        switch view {
        case "why":
            guard let target else { throw CommandError.usage("cloudkit why needs an object: cloudkit why Entity/pN") }
            let (entity, key) = try HistoryQuery.object(parsing: target, store: store)
            let story = try store.read { try CloudKitObjectStory(mirroring, entity: entity, primaryKey: key, $0) }
            results.report(CloudKitReport.report(story, store: store))
        case "events" where follow:
            try followEvents(mirroring, results: results, session: session)
        case "zones": try zones(mirroring, results: results, session: session)
        case "objects": try objects(mirroring, results: results, session: session)
        case "events": try events(mirroring, results: results, session: session)
        case "entities": try entities(mirroring, results: results, session: session)
        case "metadata": try metadata(mirroring, results: results, session: session)
        case "relationships": try relationships(mirroring, results: results, session: session)
        default:
            let status = try store.read { try CloudKitStatus(mirroring, $0) }
            results.report(CloudKitReport.report(status, store: store))
        }
    }

    private func check(_ session: Session) throws {
        let model = try target.map { path -> ManagedObjectModel in
            guard ModelCommand.isModelFile(path) else {
                throw CommandError.usage("cloudkit check takes a model file (.xcdatamodeld, .xcdatamodel or contents), not '\(path)'")
            }
            return try XcdatamodelReader.model(atPath: path)
        } ?? session.store.model
        let check = CloudKitModelCheck(model)
        let results = session.results(output)
        let writer = results.rows(["entity", "property", "rule", "detail"])
        for v in check.violations {
            writer.row([.string(v.entity), v.property.map(OutputValue.string) ?? .null, .string(v.rule.rawValue), .string(v.detail)])
        }
        writer.finish()
        if !check.violations.isEmpty { results.note("") }
        results.note(check.violations.isEmpty ? "the model meets CloudKit's rules"
                     : "the model breaks CloudKit's rules in \(check.violations.count) place(s): NSPersistentCloudKitContainer refuses to load this model")
        session.output.flush()
        if !check.violations.isEmpty { throw CloudKitRulesBroken(count: check.violations.count) }
    }

    private func zones(_ mirroring: CloudKitMirroring, results: Results, session: Session) throws {
        let writer = results.rows(["zone", "owner", "scope", "objects"])
        for zone in try session.store.read(mirroring.zones) {
            writer.row([HistoryRows.text(zone.name), HistoryRows.text(zone.owner), zone.scope.map(OutputValue.integer) ?? .null,
                        .integer(zone.objects)])
        }
        writer.finish()
    }

    private func objects(_ mirroring: CloudKitMirroring, results: Results, session: Session) throws {
        let store = session.store
        let writer = results.rows(["objectID", "recordName", "zone", "needsUpload", "needsCloudDelete", "needsLocalDelete",
                                         "lastExportedToken", "pendingExportToken", "pendingExportChangeType"])
        let entity = try target.map(store.entity)
        let predicate = try self.predicate.predicate(entity: entity?.name, model: store.model, store: store, warn: session.warn)
        try store.read { db in try mirroring.objects(entity: entity, predicate: predicate, predicateText: self.predicate.text, db) { o in
            writer.row([.objectURI(prefix: ObjectID.uriPrefix(storeUUID: store.uuid, entityName: o.entityName), key: o.primaryKey),
                        HistoryRows.text(o.recordName), HistoryRows.text(o.zoneName), .bool(o.needsUpload), .bool(o.needsCloudDelete),
                        .bool(o.needsLocalDelete), o.lastExportedToken.map(OutputValue.integer) ?? .null,
                        o.pendingExportToken.map(OutputValue.integer) ?? .null, o.pendingExportChangeType.map(OutputValue.integer) ?? .null])
        } }
        writer.finish()
    }

    private func events(_ mirroring: CloudKitMirroring, results: Results, session: Session) throws {
        results.report(CloudKitReport.report(try session.store.read { try mirroring.events($0) }))
    }

    private func entities(_ mirroring: CloudKitMirroring, results: Results, session: Session) throws {
        let writer = results.rows(["entity", "mirrored", "pendingUpload", "pendingDelete", "pendingLocalDelete"])
        for e in try session.store.read(mirroring.entities) {
            writer.row([.string(e.entityName), .integer(e.mirrored), .integer(e.pendingUpload), .integer(e.pendingDelete),
                        .integer(e.pendingLocalDelete)])
        }
        writer.finish()
    }

    private func metadata(_ mirroring: CloudKitMirroring, results: Results, session: Session) throws {
        let writer = results.rows(["key", "value"])
        for entry in try session.store.read(mirroring.metadataEntries) { writer.row([.string(entry.key), OutputValue(entry.value)]) }
        writer.finish()
    }

    private func relationships(_ mirroring: CloudKitMirroring, results: Results, session: Session) throws {
        let writer = results.rows(["recordName", "zone", "entity", "relationship", "objectRecordName", "relatedEntity",
                                         "relatedRecordName", "isUploaded", "isPending", "needsDelete"])
        try session.store.read { db in try mirroring.mirroredRelationships(db) { r in
            writer.row([HistoryRows.text(r.recordName), HistoryRows.text(r.zoneName), HistoryRows.text(r.entityName),
                        HistoryRows.text(r.relationshipName), HistoryRows.text(r.recordNameOfObject), HistoryRows.text(r.relatedEntityName),
                        HistoryRows.text(r.relatedRecordName), .bool(r.isUploaded), .bool(r.isPending), .bool(r.needsDelete)])
        } }
        writer.finish()
    }

    private func followEvents(_ mirroring: CloudKitMirroring, results: Results, session: Session) throws {
        let follower = CloudKitEventFollower(mirroring)
        let events = results.events(columns: CloudKitReport.followColumns)
        var seen = 0
        do {
            try follower.run(until: timeout.map { Date(timeIntervalSinceNow: $0) },
                             ready: { session.note("following the CloudKit events of \(mirroring.store.path); Ctrl-C stops") }) { change in
                CloudKitReport.emit(change, to: events)
                seen += 1
                return limit.map { seen < $0 } ?? true
            }
        } catch where Cancellation.isInterruption(error) {
            // Ctrl-C is how following ends: what was printed stands.
        }
        session.output.flush()
    }
}

/// `cloudkit check` found the model breaking CloudKit's rules: exit 1, after the report.
public struct CloudKitRulesBroken: Finding, CustomStringConvertible {
    public let count: Int
    public var description: String { "the model breaks CloudKit's rules in \(count) place(s)" }
}

extension CloudKitCommand {
    static let tool = ToolDeclaration(
        title: "CloudKit sync state",
        description: "Why didn't it sync? CloudKit mirroring state: status (last export and import, "
            + "changes not yet exported, pending and never-exported objects, failed events with their errors explained, a verdict), "
            + "why (the story of one object), check (the model against CloudKit's rules), events, entities, zones, objects, "
            + "metadata or relationships.",
        answersWithStoreContent: true,
        arguments: [ToolArgument("view", .string, "status (default), why, check, events, entities, zones, objects, metadata or relationships."),
                    .entity("For objects: the entity.", required: false),
                    ToolArgument("object", .string, "For why: the object, Entity/pN or its x-coredata URI."),
                    .predicate, .predicateArguments],
        answer: .anyObject
    ) { a in
        var command = try CloudKitCommand.parse([])
        command.view = a.text("view") ?? "status"
        command.target = a.text("object") ?? a.text("entity")
        command.predicate = try a.predicate()
        return command
    }
}

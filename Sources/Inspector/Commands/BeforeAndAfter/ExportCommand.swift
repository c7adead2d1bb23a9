import ArgumentParser
import Foundation
import ManagedStore

public struct ExportCommand: SessionCommand {
    public static let traits = CommandTraits(group: .beforeAndAfter, firstArgumentIsEntity: true)

    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the store's objects (or some entities' and those they reach) as one JSON document.",
        discussion: """
            The document: {"format": 1, "storeUUID", "versionHashes", "entities": [{"entity", "objects": \
            [...]}]}. Each concrete entity's own objects, in primary key order, as fetch --format json prints \
            them (the object ID first, composites nested), with every relationship: a to-one as an object ID, a \
            to-many as an array of them (an ordered one in its order). Binary data and externally stored data \
            are inline (base64), a transformable as its archived bytes (base64, as fetch --raw), so that an \
            import gives the same values back. With ENTITY…, those entities with their sub-entities; with \
            --follow, every entity their relationships reach too. With --where (and --arg, --var) and one ENTITY, \
            the objects a fetch with that predicate returns, as fetch selects them; --keys keeps only the named \
            attributes and relationships of each (an import then updates just those). Written as it is read, \
            entity by entity; with --to, into a hidden file beside FILE moved into place when whole.
            """)

    @Argument(help: "Only these entities, and the entities their relationships reach.", completion: EntityCompletion.kind)
    public var entities: [String] = []

    @Option(name: .customLong("to"), help: ArgumentHelp("Write the document into this file instead of standard output.", valueName: "file"),
            completion: .file())
    public var file: String?

    @Flag(name: .long, help: "With ENTITY…, also every entity their relationships reach.")
    public var follow = false

    @Option(name: .long, help: ArgumentHelp("Only these attributes and relationships of each object (the object ID is always there).",
                                            valueName: "key,key"))
    public var keys: String?

    @OptionGroup public var predicate: PredicateOptions

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        let export = try selection(in: session)
        let only = try keys.map { try Self.keyList($0, entities: export.entities) }
        guard let file else { return try Self.write(export, keys: only, to: session.output) }
        try ExportDocument.write(to: file) { sink in try Self.write(export, keys: only, to: sink) }
        session.note("exported \(export.entities.count) entities of \(store.path) to \(file)")
    }

    /// What is exported: the objects a fetch with `--where` returns (their keys, by entity),
    /// or whole entities.
    func selection(in session: Session) throws -> StoreExport {
        let store = session.store
        // nil without --where (an --arg without it is refused there, as for fetch).
        guard let selected = try predicate.predicate(entity: entities.first, model: store.model, store: store, warn: session.warn) else {
            return try StoreExport(store, entities: entities, follows: follow)
        }
        guard entities.count == 1, let entity = entities.first else {
            throw CommandError.usage("--where selects the objects of one entity: name it, as in 'export STORE Person --where \"age > 30\"'")
        }
        if follow { throw CommandError.usage("--follow exports whole entities; with --where, name the related entities' objects by their own --where") }
        let request = FetchRequest(entityName: entity, predicate: selected, predicateText: predicate.text, resultType: .ids)
        var keys: [String: [Int64]] = [:]
        let context = try session.contexts.context(nil)
        try context.fetch(request) { object in keys[object.entityName, default: []].append(object.primaryKey) }
        return StoreExport(store, keys: keys)
    }

    /// `--keys`: names each exported entity has; one that none has is refused.
    static func keyList(_ text: String, entities: [EntityMapping]) throws -> Set<String> {
        let names = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        for name in names where !entities.contains(where: { $0.attribute(name) != nil || $0.relationship(name) != nil }) {
            throw CommandError.usage("--keys: no exported entity has \(name)")
        }
        return names
    }

    /// A value as fetch --format json prints it, except a date whose ISO 8601 text (to the
    /// millisecond) would not read back to the same moment: that one is its seconds since
    /// 2001, so that an import stores the very value exported.
    static func exported(_ value: ObjectValue) -> OutputValue {
        // A whole number of seconds in the years 1 to 9900, which ISO 8601 text writes with four
        // digits, reads back exactly; only other values are written out and parsed to see.
        if case .attribute(.date(let seconds)) = value, !(seconds.rounded() == seconds && seconds > -6e10 && seconds < 2.5e11),
           !ImportDates.readsBack(seconds, OutputValue.isoDate(seconds)) {
            return .real(seconds)
        }
        return OutputValue(value, rawArchives: true)
    }

    /// The document, written as the objects are read.
    static func write(_ export: StoreExport, keys: Set<String>? = nil, to sink: OutputSink) throws {
        let document = ExportDocument(export.store, sink: sink)
        try export.run(entity: { document.entity($0) }, object: { object in
            guard let keys else { return document.object(object) }
            document.object(object.objectID, values: object.values.filter { keys.contains($0.key) })
        })
        document.finish()
    }
}

import ArgumentParser
import ManagedStore

public struct FetchCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, takesWhereClause: true, firstArgumentIsEntity: true)

    public static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch objects of an entity, with an NSPredicate, sort, limit and offset.",
        discussion: """
            'fetch ENTITY where P…' takes the rest of the line as the predicate. Objects print with \
            their object ID (x-coredata://UUID/Entity/pN) and their attributes and to-one \
            relationships; rows stream out as they are read. To-many relationships show when \
            --keys names them: 'cars.@count' for the number, 'cars' for the object IDs.
            """)

    @Argument(help: "The entity to fetch (its sub-entities' objects are included).", completion: EntityCompletion.kind)
    public var entity: String

    @OptionGroup public var predicate: PredicateOptions
    @OptionGroup public var shape: FetchShapeOptions
    @OptionGroup public var inContext: ContextFetchOptions
    @OptionGroup public var output: FormatOption

    @Flag(name: .long, help: "Show transformable values as their archived bytes (base64) instead of decoding them.")
    public var raw = false

    public init() {}

    public func run(in session: Session) throws {
        let request = try shape.request(entity: entity, predicate: predicate, warn: session.warn)
        let format = session.format(output.format)
        if request.resultType == .count {
            try FetchCommand.printCount(request, in: session, format: format, options: inContext)
            return
        }
        try inContext.checkUsable(in: session)
        let c = try inContext.context.resolve(in: session)
        let plan = try FetchPlan(request, store: session.store)
        plan.warnings.forEach(session.warn)
        let showsID = request.resultType != .dicts
        let keys = request.resultType == .ids ? [] : plan.properties.map(\.name)
        let columns = (showsID ? ["objectID"] : []) + keys
        let composites = Set(plan.properties.filter { $0.name.contains(".") && $0.attribute?.name == $0.name }.map(\.name))
        let writer = RowWriter(columns: columns, format: format, sink: session.output, nested: composites)
        // Read once: a property wrapper's getter per value costs a metadata lookup per row.
        var shown = ShownValues(rawArchives: raw)
        if request.resultType == .dicts {
            try c.fetchDictionaries(plan) { row in
                writer.beginRow()
                for value in row.values { writer.add(shown.value(value)) }
                writer.endRow()
            }
        } else {
            var options = inContext.options
            options.idsOnly = request.resultType == .ids
            // What a later command may see: the objects of the last result, as an app
            // holds the array a fetch returns. A run of one command has no later command.
            // Asked only while it holds more: past its limit, a row costs nothing here.
            var holds = !session.runsOneCommand
            _ = try session.contexts.collectResult(in: c) { hold in
                try c.fetch(request, keys: keys, options: options) { fetched in
                    if holds { holds = try hold { try fetched.object() } }
                    writer.beginRow()
                    shown.uris.write(fetched, to: writer)
                    // Each value as the row holds it: a plain attribute straight from SQLite.
                    try fetched.withValues { shown.add($0, to: writer) }
                    writer.endRow()
                }
            }
        }
        writer.finish()
    }

    static func printCount(_ request: FetchRequest, in session: Session, format: OutputFormat,
                           options: ContextFetchOptions) throws {
        try options.checkUsable(in: session)
        let plan = try FetchPlan(request, store: session.store)
        plan.warnings.forEach(session.warn)
        let n = try options.context.resolve(in: session).count(request, options: options.options)
        session.output.line(format == .json ? "{\"count\": \(n)}" : String(n))
    }
}

/// Turns fetched values into what is printed, keeping per fetch what every row shares.
struct ShownValues {
    var uris = ObjectURICache()
    let rawArchives: Bool

    init(rawArchives: Bool) {
        self.rawArchives = rawArchives
    }

    /// A value as the row holds it: a string's bytes go to the writer as they are.
    mutating func add(_ value: RowValue, to writer: RowWriter) {
        switch value {
        case .text(let utf8): writer.add(utf8: utf8)
        case .decoded(let v): writer.add(self.value(v))
        case .null: writer.add(.null)
        case .integer(let i): writer.add(integer: i)
        case .real(let d): writer.add(.real(d))
        case .bool(let b): writer.add(.bool(b))
        case .date(let d): writer.add(date: d)
        }
    }

    mutating func value(_ value: ObjectValue) -> OutputValue {
        switch value {
        case .attribute(let a): return OutputValue(a, rawArchives: rawArchives)
        case .toOne(let id?): return uris.value(id)
        case .toOne(nil): return .null
        case .toMany(let ids): return .array(ids.map { uris.value($0) })
        }
    }
}

/// Object URIs share their `x-coredata://UUID/Entity/p` prefix; building it once per
/// entity rather than once per row matters at a million rows.
///
/// Rows of an entity hierarchy, and the objects their relationships name, change entity
/// from one value to the next, so the prefixes are kept in a short list searched in order
/// (the model's own name strings compare at once) rather than hashed per value; past
/// `listed` entities, a dictionary holds the rest.
struct ObjectURICache {
    /// An entity's prefix, and whether it needs no quoting in any format: both settled once.
    private struct Entry {
        let entity: String
        let prefix: String
        let isPlain: Bool
    }
    private static let listed = 16
    private var entries: [Entry] = []
    private var more: [String: Entry] = [:]
    /// The entity of the value before: every value, when a fetch's rows are of one entity.
    /// Plain fields, not an optional, so that a row's URI borrows them instead of copying.
    private var lastEntity = ""
    private var lastPrefix = ""
    private var lastPrefixIsPlain = false

    /// A fetched object's URI, from its entity and key without making its ID, written
    /// into the row as the next field.
    mutating func write(_ object: borrowing FetchedObject, to writer: RowWriter) {
        let key = object.primaryKey
        guard key > 0 else { return writer.add(value(object.objectID)) }
        let entity = object.entityName
        if lastEntity.isEmpty || lastEntity != entity {
            remember(entry(for: entity) ?? entry(for: object.objectID))
        }
        writer.add(objectURIPrefix: lastPrefix, key: key, plain: lastPrefixIsPlain)
    }

    mutating func value(_ id: ObjectID) -> OutputValue {
        if id.isTemporary { return .objectID(id.uri) }
        if lastEntity.isEmpty || lastEntity != id.entityName {
            remember(entry(for: id.entityName) ?? entry(for: id))
        }
        return .objectURI(prefix: lastPrefix, key: id.primaryKey)
    }

    private mutating func remember(_ entry: Entry) {
        lastEntity = entry.entity
        lastPrefix = entry.prefix
        lastPrefixIsPlain = entry.isPlain
    }

    private func entry(for entity: String) -> Entry? {
        for entry in entries where entry.entity == entity { return entry }
        return more[entity]
    }

    /// A new entity's entry, made from an object ID of it.
    private mutating func entry(for id: ObjectID) -> Entry {
        let prefix = ObjectID.uriPrefix(storeUUID: id.storeUUID, entityName: id.entityName)
        let entry = Entry(entity: id.entityName, prefix: prefix, isPlain: RowWriter.isPlainInEveryFormat(prefix))
        if entries.count < Self.listed {
            entries.append(entry)
        } else {
            more[id.entityName] = entry
        }
        return entry
    }
}

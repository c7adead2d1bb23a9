import ArgumentParser
import ManagedStore

public struct FetchCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch objects of an entity, with an NSPredicate, sort, limit and offset.",
        discussion: """
            'fetch ENTITY where P…' takes the rest of the line as the predicate. Objects print with \
            their object ID (x-coredata://UUID/Entity/pN) and their attributes and to-one \
            relationships; rows stream out as they are read.
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
        let plan = try FetchPlan(request, store: session.store)
        plan.warnings.forEach(session.warn)
        let showsID = request.resultType != .dicts
        let columns = (showsID ? ["objectID"] : []) + (request.resultType == .ids ? [] : plan.properties.map(\.name))
        let composites = Set(plan.properties.filter { $0.name.contains(".") && $0.attribute?.name == $0.name }.map(\.name))
        let writer = RowWriter(columns: columns, format: format, sink: session.output, nested: composites)
        // Dictionaries never include pending changes in Core Data, so they read the store,
        // at the context's generation when it is pinned.
        let c = session.usesContexts ? try inContext.context.resolve(in: session) : nil
        if let c, request.resultType != .dicts {
            try fetchInContext(request, plan: plan, context: c, session: session, writer: writer)
            writer.finish()
            return
        }
        var uris = ObjectURICache()
        // Read once: a property wrapper's getter per value costs a metadata lookup per row.
        let rawArchives = raw
        var values: [OutputValue] = []
        values.reserveCapacity(columns.count)
        try session.store.read(in: c) { db in
            _ = try plan.forEach(db) { row in
                values.removeAll(keepingCapacity: true)
                if showsID { values.append(row.objectID.map { uris.value($0) } ?? .null) }
                if request.resultType != .ids {
                    for value in row.values {
                        if case .object(let id?) = value { values.append(uris.value(id)) } else { values.append(OutputValue(value, rawArchives: rawArchives)) }
                    }
                }
                writer.row(values)
            }
        }
        writer.finish()
    }

    /// Objects and IDs through the context: registered there, with its unsaved changes
    /// matched in memory and realized objects showing their in-memory values.
    func fetchInContext(_ request: FetchRequest, plan: FetchPlan, context c: Context, session: Session, writer: RowWriter) throws {
        let keys = plan.properties.map(\.name)
        let idsOnly = request.resultType == .ids
        let rawArchives = raw
        var values: [OutputValue] = []
        var options = inContext.options
        options.idsOnly = idsOnly
        _ = try session.contexts.collectResult(in: c) { hold in
            try c.fetch(request, options: options) { object in
                hold(object)
                values.removeAll(keepingCapacity: true)
                values.append(.objectID(object.objectID.uri))
                if !idsOnly {
                    let visible = object.visibleValues
                    for key in keys {
                        let value = try visible[key] ?? c.value(of: object, keyPath: key)
                        values.append(OutputValue(value, rawArchives: rawArchives))
                    }
                }
                writer.row(values)
            }
        }
    }

    static func printCount(_ request: FetchRequest, in session: Session, format: OutputFormat,
                           options: ContextFetchOptions) throws {
        try options.checkUsable(in: session)
        let plan = try FetchPlan(request, store: session.store)
        plan.warnings.forEach(session.warn)
        let n = session.usesContexts
            ? try options.context.resolve(in: session).count(request, options: options.options)
            : try session.store.read { try plan.count($0) }
        session.output.line(format == .json ? "{\"count\": \(n)}" : String(n))
    }
}

/// Object URIs share their `x-coredata://UUID/Entity/p` prefix; building it once per
/// entity rather than once per row matters at a million rows.
struct ObjectURICache {
    private var prefixes: [String: String] = [:]
    private var last: (entity: String, prefix: String)?

    mutating func value(_ id: ObjectID) -> OutputValue {
        if let last, last.entity == id.entityName { return .objectURI(prefix: last.prefix, key: id.primaryKey) }
        let prefix = prefixes[id.entityName] ?? ObjectID.uriPrefix(storeUUID: id.storeUUID, entityName: id.entityName)
        prefixes[id.entityName] = prefix
        last = (id.entityName, prefix)
        return .objectURI(prefix: prefix, key: id.primaryKey)
    }
}

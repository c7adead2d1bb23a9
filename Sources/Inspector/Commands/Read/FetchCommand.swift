import ArgumentParser
import ManagedStore

public struct FetchCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, takesWhereClause: true, firstArgumentIsEntity: true, tool: tool, onlyReads: true)

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
        let request = try shape.request(entity: entity, predicate: predicate, store: session.store, warn: session.warn)
        let results = session.results(output)
        if request.resultType == .count {
            try FetchCommand.printCount(request, in: session, results: results, options: inContext)
            return
        }
        try inContext.checkUsable(in: session)
        let c = try inContext.context.resolve(in: session)
        let showsID = request.resultType != .dicts
        // Dictionaries read the store alone, with the plan of the request as it is; objects
        // and IDs run the context's prepared fetch, whose plan holds the predicate, and the
        // keys to show come from a plan of the keys alone (no predicate compiled twice).
        let source: Source
        var shownProperties: [FetchPlan.Property] = []
        if request.resultType == .dicts {
            let plan = try FetchPlan(request, store: session.store)
            plan.warnings.forEach(session.warn)
            source = .dictionaries(plan)
            shownProperties = plan.properties
        } else {
            var options = inContext.options
            options.idsOnly = request.resultType == .ids
            let prepared = try c.prepareFetch(request, options: options)
            prepared.warnings.forEach(session.warn)
            source = .objects(prepared)
            if request.resultType != .ids {
                let keysOnly = try FetchPlan(request.keysOnly, store: session.store)
                keysOnly.warnings.forEach(session.warn)
                shownProperties = keysOnly.properties
            }
        }
        let keys = shownProperties.map(\.name)
        let columns = (showsID ? ["objectID"] : []) + keys
        let composites = Set(shownProperties.filter { $0.name.contains(".") && $0.attribute?.name == $0.name }.map(\.name))
        let writer = results.rows(columns, nested: composites)
        // Read once: a property wrapper's getter per value costs a metadata lookup per row.
        var shown = ShownValues(rawArchives: raw)
        switch source {
        case .dictionaries(let plan):
            try c.fetchDictionaries(plan) { row in
                writer.beginRow()
                for value in row.values { writer.add(shown.value(value)) }
                writer.endRow()
            }
        case .objects(let prepared):
            // What a later command may see: the objects of the last result, as an app
            // holds the array a fetch returns. A run of one command has no later command.
            // Asked only while it holds more: past its limit, a row costs nothing here.
            var holds = !session.runsOneCommand
            _ = try session.contexts.collectResult(in: c) { hold in
                try c.fetch(prepared, keys: keys) { fetched in
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

    /// Where a fetch's rows come from.
    private enum Source {
        case dictionaries(FetchPlan)
        case objects(PreparedFetch)
    }

    static func printCount(_ request: FetchRequest, in session: Session, results: Results,
                           options: ContextFetchOptions) throws {
        try options.checkUsable(in: session)
        let context = try options.context.resolve(in: session)
        // `request` is a count (count, or fetch --as count).
        let prepared = try context.prepareFetch(request, options: options.options)
        prepared.warnings.forEach(session.warn)
        let n = try context.count(prepared)
        results.scalar("count", .integer(Int64(n)))
    }
}

extension FetchCommand: PagedCommand {
    static let tool = ToolDeclaration(
        title: "Fetch objects", description: "Objects of an entity as JSON, with 'truncated' when more matched than were returned.",
        answersWithStoreContent: true,
        arguments: [.entity("The entity (sub-entities included)."), .predicate, .predicateArguments,
                    ToolArgument("sort", .list, "Sort keys, comma-separated or an array, each KEY or KEY:desc."), .limit,
                    ToolArgument("keys", .list, "Only these keys, comma-separated or an array."), .cursor],
        rowsKey: "objects",
        answer: .object([("objectID", .string)], required: ["objectID"]),
        view: .grid
    ) { a in
        var command = try FetchCommand.parse(["-"])
        command.entity = a.text("entity") ?? ""
        command.predicate = try a.predicate()
        command.shape.sort = a.items("sort")
        if !a.items("keys").isEmpty { command.shape.keyList.value = a.items("keys") }
        return command
    }

    public mutating func page(offset: Int, limit: Int) {
        (shape.offset, shape.limit) = (offset, limit)
    }
}

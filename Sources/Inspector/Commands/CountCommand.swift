import ArgumentParser
import ManagedStore

public struct CountCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, takesWhereClause: true, firstArgumentIsEntity: true, tool: tool)

    public static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count the objects of an entity that match a predicate.",
        discussion: "Prints the number alone ({\"count\": N} in JSON). Sub-entities' objects are counted, as a fetch returns them. 'count ENTITY where P…' takes the rest of the line as the predicate.")

    @Argument(help: "The entity to count.", completion: EntityCompletion.kind)
    public var entity: String

    @OptionGroup public var predicate: PredicateOptions
    @OptionGroup public var inContext: ContextFetchOptions
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let request = FetchRequest(entityName: entity, predicate: try predicate.predicate(warn: session.warn), predicateText: predicate.text, resultType: .count)
        try FetchCommand.printCount(request, in: session, results: session.results(output), options: inContext)
    }
}

public struct ExplainCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, takesWhereClause: true, firstArgumentIsEntity: true, tool: tool)

    public static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Print the SQL a fetch would run, and its bound values, without running it.",
        discussion: "Takes the options of fetch. The SQL is what cdinspect runs, written as Core Data's SQLite store writes it; the cdi_* functions stand in for the ones Core Data registers (NSCoreDataLike, NSCoreDataStringSearch, …).")

    @Argument(help: "The entity to fetch.", completion: EntityCompletion.kind)
    public var entity: String

    @OptionGroup public var predicate: PredicateOptions
    @OptionGroup public var shape: FetchShapeOptions
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let plan = try FetchPlan(try shape.request(entity: entity, predicate: predicate, warn: session.warn).storeRequest, store: session.store)
        plan.warnings.forEach(session.warn)
        let values = plan.statement.storedArguments.map(OutputValue.init)
        let sql = plan.statement.sql
        // The statement and its bindings, as lines, in every format but JSON.
        let lines = { [ReportPart.line(sql)] + values.enumerated().map { .line("  bind[\($0.offset)] = \($0.element.bindText)") } }
        session.results(output).report(Report(value: { .object([("sql", .string(sql)), ("arguments", .array(values))]) },
                                              people: lines, csv: lines))
    }
}

extension CountCommand {
    static let tool = ToolDeclaration(
        title: "Count objects", description: "How many objects of an entity match a predicate.",
        arguments: [.entity(), .predicate, .predicateArguments]
    ) { a in
        var command = try CountCommand.parse(["-"])
        command.entity = a.text("entity") ?? ""
        command.predicate = try a.predicate()
        return command
    }
}

extension ExplainCommand {
    static let tool = ToolDeclaration(
        title: "Explain a fetch's SQL", description: "The SQL a fetch runs, and its bound values.",
        arguments: [.entity(), .predicate, .predicateArguments, ToolArgument("sort", .list, "Sort keys, comma-separated or an array.")]
    ) { a in
        var command = try ExplainCommand.parse(["-"])
        command.entity = a.text("entity") ?? ""
        command.predicate = try a.predicate()
        command.shape.sort = a.items("sort")
        return command
    }
}

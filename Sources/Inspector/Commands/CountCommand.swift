import ArgumentParser
import ManagedStore

public struct CountCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, takesWhereClause: true, firstArgumentIsEntity: true)

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
        try FetchCommand.printCount(request, in: session, format: session.format(output.format), options: inContext)
    }
}

public struct ExplainCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, takesWhereClause: true, firstArgumentIsEntity: true)

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
        switch session.format(output.format) {
        case .json:
            session.output.line(OutputValue.object([("sql", .string(plan.statement.sql)), ("arguments", .array(values))]).jsonText)
        default:
            session.output.line(plan.statement.sql)
            for (i, value) in values.enumerated() {
                session.output.line("  bind[\(i)] = \(value.bindText)")
            }
        }
    }
}

import ArgumentParser
import ManagedStore

public struct CountCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, takesWhereClause: true, firstArgumentIsEntity: true, tool: tool, onlyReads: true)

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
        let request = FetchRequest(entityName: entity, predicate: try predicate.predicate(entity: entity, model: session.store.model, store: session.store, warn: session.warn), predicateText: predicate.text, resultType: .count)
        try FetchCommand.printCount(request, in: session, results: session.results(output), options: inContext)
    }
}

extension CountCommand {
    static let tool = ToolDeclaration(
        title: "Count objects", description: "How many objects of an entity match a predicate.",
        arguments: [.entity(), .predicate, .predicateArguments],
        answer: .record([("count", .integer)])
    ) { a in
        var command = try CountCommand.parse(["-"])
        command.entity = a.text("entity") ?? ""
        command.predicate = try a.predicate()
        return command
    }
}

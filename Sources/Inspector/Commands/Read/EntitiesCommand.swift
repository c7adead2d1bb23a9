import ArgumentParser
import ManagedStore

public struct EntitiesCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "entities",
        abstract: "List the entities with parent, table and row counts.",
        discussion: "'count' is the number of rows a fetch of the entity returns (its sub-entities' rows included); 'own' counts only rows of the entity itself.")

    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        let counts = try store.read { try EntityCounts.read(store, $0) }
        let writer = session.results(output).rows(["name", "parent", "abstract", "table", "entityID", "count", "own"])
        for entity in store.mapping.entities {
            writer.row([
                .string(entity.name),
                entity.superentityName.map { .string($0) } ?? .null,
                .bool(entity.isAbstract),
                .string(entity.table),
                entity.entityID.map { .integer(Int64($0)) } ?? .null,
                .integer(Int64(counts.total[entity.name] ?? 0)),
                .integer(Int64(counts.own[entity.name] ?? 0)),
            ])
        }
        writer.finish()
    }
}

extension EntitiesCommand {
    static let tool = ToolDeclaration(
        title: "List entities", description: "The store's entities: name, parent, abstract, table and object count.",
        answer: .rows(.object([("name", .string), ("parent", .nullable(.string)), ("abstract", .boolean), ("count", .nullable(.integer))], required: ["name", "abstract"]))
    ) { _ in try EntitiesCommand.parse([]) }
}

import ArgumentParser
import Foundation
import ManagedStore

public struct RecoverCommand: SessionCommand {
    public static let traits = CommandTraits(group: .beforeAndAfter, firstArgumentIsEntity: true, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "List the objects no live row holds that the store's files still keep, as Core Data names them.",
        discussion: """
            One record per object: its entity (null for a plain SQLite file's row) and table, object ID, state \
            ('deleted'), source, confidence and values (every attribute and relationship, as export writes them). \
            From the -wal's earlier generations: each object a save deleted, exactly as the generation before that \
            save holds it (source: that generation and the save that deleted it; confidence exact). From the main \
            file's free space (freeblocks, unallocated space, freelist and orphan pages, dropped tables): whole \
            cells (intact, their rowid kept) and freed cells rebuilt from the table's column types (rebuilt, their \
            rowid lost), with the page and offset; none equal to a live row. Then, per table, the keys below \
            Z_PRIMARYKEY's Z_MAX that no row holds (state 'keys-missing'), with how many were read back. With \
            ENTITY…, those entities and their sub-entities (a plain file's tables by name). With --export FILE, the \
            recovered objects as export's JSON document, which import --upsert objectID puts back. Reads only: \
            nothing beside the store changes.
            """)

    @Argument(help: "Only these entities (and their sub-entities).", completion: EntityCompletion.kind)
    public var entities: [String] = []

    @Option(name: .customLong("export"), help: ArgumentHelp("Write the recovered objects as export's JSON document into this file.", valueName: "file"),
            completion: .file())
    public var file: String?

    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        let recovery = try StoreRecovery(store, entities: entities)
        var recovered = 0
        if let file {
            try ExportDocument.write(to: file) { sink in
                let document = ExportDocument(store, sink: sink)
                var current: String?
                try recovery.run(object: { found in
                    // An object of an entity: with its object ID where its key survives (a rebuilt
                    // cell's is lost: an import inserts it under a new one); a plain table's row is no object.
                    guard let name = found.entity, let entity = store.mapping.entity(named: name) else { return }
                    if current != entity.name {
                        current = entity.name
                        document.entity(entity)
                    }
                    document.object(found.objectID, values: found.values)
                    recovered += 1
                }, missing: { _ in })
                document.finish()
            }
            session.note("wrote \(recovered) recovered object\(recovered == 1 ? "" : "s") of \(store.path) to \(file)")
            return
        }
        let writer = session.results(output).rows(["entity", "table", "objectID", "state", "source", "confidence", "values"])
        var missingKeys: Int64 = 0
        var carved = 0
        try recovery.run(object: { found in
            recovered += 1
            if case .carved = found.source { carved += 1 }
            writer.row([found.entity.map(OutputValue.string) ?? .null, .string(found.table), found.objectID.map { .objectID($0.uri) } ?? .null, .string(found.state),
                        Self.source(found.source), Self.confidence(found.confidence),
                        .object(found.values.map { ($0.key, ExportCommand.exported($0.value)) })])
        }, missing: { keys in
            missingKeys += keys.count
            writer.row([.string(keys.entity), store.mapping.entity(named: keys.entity).map { .string($0.table) } ?? .null, .null, .string("keys-missing"),
                        .object([("kind", .string("Z_PRIMARYKEY")), ("issued", .integer(keys.issued))]),
                        .object([("level", .string("evidence")),
                                 ("reason", .string("keys below Z_MAX that no row holds: their objects were deleted, or their saves never committed"))]),
                        .object([("keys", .string(keys.text)), ("count", .integer(keys.count)), ("recovered", .integer(Int64(keys.recovered)))])])
        })
        writer.finish()
        if !store.isCoreDataStore {
            session.note("\(recovered) deleted row\(recovered == 1 ? "" : "s") carved from free space (\(store.path) is not a Core Data store: "
                         + "its rows are named by table and column)")
        } else {
            session.note("\(recovered) deleted object\(recovered == 1 ? "" : "s") read back (\(recovered - carved) from the -wal's earlier generations, "
                         + "\(carved) carved from free space); \(missingKeys) key\(missingKeys == 1 ? "" : "s") below Z_MAX no row holds")
        }
    }

    static func source(_ source: RecoveredObject.Source) -> OutputValue {
        switch source {
        case .earlierGeneration(let generation, let deletedBy):
            return .object([("kind", .string("earlier-generation")), ("generation", .string(generation)), ("deletedBy", .string(deletedBy))])
        case .carved(let page, let offset, let space):
            return .object([("kind", .string(space.rawValue)), ("page", .integer(Int64(page))), ("offset", .integer(Int64(offset)))])
        }
    }

    static func confidence(_ confidence: RecoveredObject.Confidence) -> OutputValue {
        .object([("level", .string(confidence.level.rawValue)), ("reason", .string(confidence.reason))])
    }
}

extension RecoverCommand {
    static let tool = ToolDeclaration(
        title: "Recover deleted objects",
        description: "The objects no live row holds that the store's files still keep: each object a save in the -wal deleted, with "
            + "its entity, object ID and every value as the generation before that save holds it; records carved from the main "
            + "file's free space, whole or rebuilt; each with where it was found and how sure; then per table the keys below Z_MAX "
            + "that no row holds ('keys-missing'). Reads only.",
        answersWithStoreContent: true,
        arguments: [ToolArgument("entities", .list, "Only these entities (and their sub-entities); every one when left out.")],
        answer: .rows(.anyObject)
    ) { a in
        var command = try RecoverCommand.parse([])
        command.entities = a.items("entities")
        return command
    }
}

import ArgumentParser
import ManagedStore

public struct MergeCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge changes made behind the contexts' backs into them (mergeChanges(fromRemoteContextSave:into:)).",
        discussion: """
            Without --ids or --deleted, the objects changed by the session's last batch request are merged. \
            Registered objects among the updated ones are refreshed (faults re-read their rows, realized \
            objects keep their own changes on top); deleted ones leave the context. A pinned context moves \
            to the newest generation first, as merging does in Core Data.
            """)

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("Updated object IDs, comma-separated; repeatable.", valueName: "id,…"))
    public var ids: [String] = []
    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("Deleted object IDs, comma-separated; repeatable.", valueName: "id,…"))
    public var deleted: [String] = []
    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A context to merge into (default: the current one); repeatable.", valueName: "context"))
    public var into: [String] = []

    public init() {}

    public func run(in session: Session) throws {
        let contexts = try into.isEmpty ? [session.contexts.current] : into.map { try session.contexts.named($0) }
        var updated: [ObjectID], gone: [ObjectID]
        if ids.isEmpty && deleted.isEmpty {
            guard let last = session.lastBatch else {
                throw CommandError.usage("nothing to merge: give --ids or --deleted, or run a batch request first")
            }
            (updated, gone) = (last.objectIDs(last.changed), last.objectIDs(last.deleted) + last.objectIDs(last.cascaded))
        } else {
            func parse(_ lists: [String]) throws -> [ObjectID] {
                try lists.flatMap { $0.split(separator: ",") }.map { try session.contexts.coordinator.objectID(parsing: $0.trimmingCharacters(in: .whitespaces)) }
            }
            (updated, gone) = (try parse(ids), try parse(deleted))
        }
        for context in contexts { try context.mergeChanges(updated: updated, deleted: gone) }
        session.output.line("merged \(updated.count) updated and \(gone.count) deleted object\(updated.count + gone.count == 1 ? "" : "s") into "
                            + contexts.map(\.name).joined(separator: ", "))
    }
}

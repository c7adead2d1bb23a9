import ArgumentParser
import Foundation
import ManagedStore

public struct SnapshotsCommand: SessionCommand {
    public static let traits = CommandTraits(group: .beforeAndAfter, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract: "List the store's snapshots in the library, oldest first.",
        discussion: """
            The snapshots 'snapshot' kept under $XDG_DATA_HOME/cdinspect/snapshots for this store's UUID, \
            whatever path the store had then, with the ones 'restore' kept of what it replaced. 'objects' \
            counts every entity's objects. A snapshot written with --to lives where it was put and is not listed.
            """)

    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let uuid = try SnapshotLibrary.uuid(of: session.store)
        let writer = session.results(output).rows(SnapshotLibrary.columns)
        for snapshot in StoreSnapshot.all(root: SnapshotLibrary.root, storeUUID: uuid) { writer.row(SnapshotLibrary.row(snapshot)) }
        writer.finish()
    }
}

extension SnapshotsCommand {
    static let tool = ToolDeclaration(
        title: "List snapshots",
        description: "The store's snapshots (taken with cdinspect snapshot, and the ones restore kept): name, time, objects, "
            + "SQLite's quick_check of the copy, external data files and folder. A snapshot's folder holds a store every tool "
            + "of another server can open.",
        answer: .rows(.object([("name", .string), ("time", .string), ("check", .string)], required: ["name"]))
    ) { _ in try SnapshotsCommand.parse([]) }
}

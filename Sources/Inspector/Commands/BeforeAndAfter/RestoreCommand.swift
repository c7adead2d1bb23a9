import ArgumentParser
import Foundation
import ManagedStore

public struct RestoreCommand: SessionCommand {
    public static let traits = CommandTraits(group: .beforeAndAfter)

    public static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a snapshot's content back into the store, keeping what it replaces as a snapshot.",
        discussion: """
            SNAPSHOT is a name among the store's snapshots ('snapshots' lists them) or a snapshot's folder. The \
            rows go back in one write, SQLite's backup API from the snapshot into the store through the store's \
            own journal; then the external data and CloudKit asset folders, each swapped in whole. First the \
            store as it is is kept as the snapshot before-restore-TIME. Refused while another process has the \
            store open (it is named: pid and program), which would find its store changed under its connections, \
            unless --force; refused when the snapshot's model version hashes are not the store's (the entities \
            are named), since the app would not open the result without a migration; refused, before anything \
            changes, when SQLite's quick_check finds the snapshot's copy damaged. Run it as \
            'cdinspect restore STORE SNAPSHOT', not in a session, whose contexts hold the store as it was.
            """)

    @Argument(help: ArgumentHelp("The snapshot: a name, or a snapshot's folder.", valueName: "snapshot"), completion: .directory)
    public var snapshot: String

    @Flag(name: .long, help: "Restore even while other processes have the store open.")
    public var force = false

    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        guard session.runsOneCommand else {
            throw CommandError.usage("restore replaces the store under this session's contexts: run it as 'cdinspect restore STORE \(snapshot)'")
        }
        let store = session.store
        let source = try SnapshotLibrary.snapshot(snapshot, of: store)
        let (keepName, keep) = try SnapshotLibrary.keepingFolder("before-restore", of: store)
        let kept = try StoreRestore.restore(source, into: store, keepName: keepName, keep: keep, force: force)
        session.results(output).report(Report(value: {
            .object([("restored", .string(store.path)), ("from", .string(source.folder.path)), ("kept", SnapshotLibrary.value(kept))])
        }, people: {
            [.line("restored \(store.path) from snapshot \(source.name)"),
             .line("  what it replaced is kept as snapshot \(kept.name) (\(kept.folder.path))")]
        }))
    }
}

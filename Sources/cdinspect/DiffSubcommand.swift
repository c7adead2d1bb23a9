import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// `cdinspect diff A B`: two stores compared object by object. Not the session's `diff`
/// (two generations of one store), so a subcommand of the executable; a session reaches
/// the same comparison with `diff --store OTHER`.
struct DiffSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two stores, or a store and a snapshot, object by object; exit 1 when they differ.",
        discussion: """
            A and B are stores (A may be an app's name, as STORE everywhere) or snapshots' folders; either \
            may be the name of one of the other's snapshots. The changes listed are those that turn A into \
            B, so 'cdinspect diff clean STORE' lists what happened since the snapshot 'clean'. Per entity: the objects only B has (inserted), only A has \
            (deleted), and those both have whose values differ (updated: each attribute and to-one old → new, \
            each to-many's added and removed members). Objects are matched by primary key when B descends \
            from A (the same store UUID: a snapshot, a copy); otherwise by --match ENTITY=KEY, the entity's \
            uniqueness constraint, or a UUID attribute 'id', and then only attributes are compared. When the \
            models differ, their differences are listed, and entities only one side has are named, not \
            compared. Exit 0 when equal, 1 when they differ (as diff(1)), 64 and up on a usage error. Both \
            stores are read through one read-only connection, in key order. With --from and --to, A and B are \
            read at past generations their files hold ('cdinspect generations STORE' lists them): \
            'cdinspect diff STORE --from w2 --to w3' lists what the third save did, field by field.
            """)

    @Argument(help: ArgumentHelp("The store before (A): a store, a snapshot's folder, or a snapshot name of B.", valueName: "a"),
              completion: .file())
    var store: String
    @Argument(help: ArgumentHelp("The store after (B): a store, a snapshot's folder, or a snapshot name of A (default: A itself, with --from or --to).", valueName: "b"),
              completion: .file())
    var other: String?
    @Option(name: .long, help: ArgumentHelp("Read A at this past generation (see 'generations').", valueName: "token"))
    var from: String?
    @Option(name: .long, help: ArgumentHelp("Read B at this past generation (see 'generations').", valueName: "token"))
    var to: String?
    @Flag(name: .long, help: "Read both as evidence: no file created or changed beside either store.")
    var immutable = false
    @OptionGroup var options: StoreDiffOptions

    func validate() throws {
        if other == nil && from == nil && to == nil {
            throw ValidationError("diff needs a second store B, or --from/--to generations of one store")
        }
    }
    @OptionGroup var output: FormatOption

    func run() throws {
        Interrupts.install()
        try Diagnostics.reporting {
            let (a, b) = try Self.open(store, other ?? store, from: from, to: to, immutable: immutable)
            defer {
                a.close()
                b.close()
            }
            for warning in a.warnings + b.warnings {
                if warning.isNote { Session.standardErrorNote("\(warning)") } else { Diagnostics.warning("\(warning)") }
            }
            let sink = Terminal.standardOutput()
            defer { sink.flush() }
            try options.compare(a, b, results: output.results(to: sink))
        }
    }

    /// A and B, each a store, a snapshot's folder, or a snapshot name of the other.
    static func open(_ a: String, _ b: String, from: String? = nil, to: String? = nil, immutable: Bool = false) throws -> (PersistentStore, PersistentStore) {
        func store(_ path: String, _ generation: String?) throws -> PersistentStore {
            var options = PersistentStore.Options(readonly: true, immutable: immutable, generation: generation)
            options.readsInPlaceWhenClosed = true
            return try PersistentStore(path: path, options: options)
        }
        if access(a, F_OK) != 0, (try? StoreSnapshot.checkName(a)) != nil, !a.contains("/") {
            // A snapshot's name, given first: of B's store.
            let after = try store(try SnapshotLibrary.storePath(b, beside: nil), to)
            if let snapshot = try? SnapshotLibrary.snapshot(a, of: after) { return (try store(snapshot.storePath, from), after) }
            after.close()
        }
        let before = try store(try SnapshotLibrary.storePath(a, beside: nil), from)
        return (before, try store(try SnapshotLibrary.storePath(b, beside: before), to))
    }
}

import ArgumentParser
import ManagedStore

/// `--context NAME`, accepted by every command that works in a context.
public struct ContextOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Work in this context instead of the current one.", valueName: "name"))
    public var context: String?

    public init() {}

    func resolve(in session: Session) throws -> Context {
        try session.contexts.context(context)
    }

    /// The context and, realized in it, the object a command names by its ID.
    func object(_ id: String, in session: Session) throws -> (Context, ManagedObject) {
        let c = try resolve(in: session)
        return (c, try c.existingObject(with: try c.objectID(parsing: id)))
    }
}

/// The switches of a fetch that concern the context it runs in.
public struct ContextFetchOptions: ParsableArguments {
    @OptionGroup public var context: ContextOption

    @Flag(name: .long, help: "Register the objects realized rather than as faults (returnsObjectsAsFaults = NO).")
    public var noFaults = false

    @Flag(name: .long, help: "Give objects already realized in the context the fetched values (shouldRefreshRefetchedObjects).")
    public var refresh = false

    @Flag(name: .long, help: "Leave the context's unsaved changes out (includesPendingChanges = NO).")
    public var noPending = false

    public init() {}

    /// In a run of one command (a subcommand) no object is registered before the fetch
    /// and no change is pending, so these switches could change nothing there and are
    /// refused rather than ignored. Its context must still be one a fresh session has.
    func checkUsable(in session: Session) throws {
        guard session.runsOneCommand else { return }
        if let name = context.context, !ContextSet.initialNames.contains(name) {
            throw ContextError.unknownContext(name)
        }
        for (flag, isOn) in [("--no-faults", noFaults), ("--refresh", refresh), ("--no-pending", noPending)] where isOn {
            throw CommandError.usage("\(flag) changes a fetch only in a session, where objects and unsaved changes "
                                     + "outlive a command (cdinspect STORE -c '...')")
        }
    }

    var options: FetchOptions {
        var options = FetchOptions()
        options.returnsObjectsAsFaults = !noFaults
        options.refreshesRefetchedObjects = refresh
        options.includesPendingChanges = !noPending
        return options
    }
}

extension MergePolicy: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }

    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

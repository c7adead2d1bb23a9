import ArgumentParser
import Foundation
import ManagedStore

public struct ContextCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "context",
        abstract: "Create, choose, list, configure and drop named managed object contexts.",
        discussion: """
            A session starts with 'main' (current) and 'background': root contexts over the store's \
            coordinator that merge each other's saves. A context made with --parent is a child: its \
            save goes into the parent only.
            """,
        subcommands: [ContextNewCommand.self, ContextUseCommand.self, ContextListCommand.self, ContextDropCommand.self, ContextSetCommand.self],
        defaultSubcommand: ContextListCommand.self)

    public init() {}

    public func run(in session: Session) throws {
        try ContextListCommand().run(in: session)
    }
}

public struct ContextNewCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "new", abstract: "Create a context (a root context, or a child with --parent).")

    @Argument(help: "The new context's name.") public var name: String
    @Option(name: .long, help: ArgumentHelp("Make it a child of this context.", valueName: "context")) public var parent: String?
    @Option(name: .long, help: ArgumentHelp("How a save resolves conflicts: error (default), store-trump, object-trump, overwrite or rollback.", valueName: "policy"))
    public var mergePolicy: MergePolicy = .error
    @Flag(name: .long, help: "Keep every registered object alive (retainsRegisteredObjects).") public var retainsRegisteredObjects = false
    @Flag(name: .long, help: "Merge other root contexts' saves automatically, as main and background do.") public var autoMerge = false
    @Flag(name: .long, help: "Make it the current context.") public var use = false

    public init() {}

    public func run(in session: Session) throws {
        let context = try session.contexts.add(name, parent: parent, mergePolicy: mergePolicy)
        context.retainsRegisteredObjects = retainsRegisteredObjects
        context.automaticallyMergesChanges = autoMerge && parent == nil
        if use { try session.contexts.use(name) }
    }
}

public struct ContextUseCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "use", abstract: "Make a context the current one: commands without --context work in it.")
    @Argument(help: "The context.") public var name: String
    public init() {}
    public func run(in session: Session) throws { try session.contexts.use(name) }
}

public struct ContextDropCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "drop", abstract: "Drop a context and everything registered in it (unsaved changes are lost).")
    @Argument(help: "The context.") public var name: String
    public init() {}
    public func run(in session: Session) throws { try session.contexts.drop(name) }
}

public struct ContextListCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the contexts: name, parent, whether current, pin state, registered objects, unsaved changes, merge policy.")
    @OptionGroup public var output: FormatOption
    public init() {}

    public func run(in session: Session) throws {
        let set = session.contexts
        let writer = session.results(output).rows(["name", "parent", "current", "pin", "registered", "changes", "mergePolicy"])
        for context in set.contexts {
            let changes = context.insertedObjects.count + context.updatedObjects.count + context.deletedObjects.count
            writer.row([.string(context.name), context.parent.map { .string($0.name) } ?? .null, .bool(context === set.current),
                        .string(ContextListCommand.pinState(context)), .integer(Int64(context.registeredObjects.count)), .integer(Int64(changes)),
                        .string(context.mergePolicy.rawValue)])
        }
        writer.finish()
    }

    /// A root's token or `unpinned`; a child's parent generation, which it reads through.
    static func pinState(_ context: Context) -> String {
        if let token = context.queryGenerationToken { return token }
        if context.parent != nil, let inherited = context.readingGeneration { return "via parent (\(inherited.token))" }
        return "unpinned"
    }
}

public struct ContextSetCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a setting of a context.",
        discussion: """
            Settings: merge-policy (error, store-trump, object-trump, overwrite, rollback); \
            retains-registered-objects (yes/no); should-delete-inaccessible-faults (yes/no, default yes); \
            staleness-interval (seconds a fetched row stays good for firing a fault; negative: forever, the default); \
            undo (on/off); auto-merge (yes/no: merge other root contexts' saves); author (the transactionAuthor \
            persistent history records for the context's saves and batch requests; default cdinspect); bundle (the \
            bundle identifier history records for them, which apps filter history by; default the executable's name).
            """)

    @OptionGroup public var context: ContextOption
    @Argument(help: "The setting.") public var setting: String
    @Argument(help: "Its new value.") public var value: String

    public init() {}

    public func run(in session: Session) throws {
        let c = try context.resolve(in: session)
        func flag() throws -> Bool {
            switch value.lowercased() {
            case "yes", "on", "true", "1": return true
            case "no", "off", "false", "0": return false
            default: throw CommandError.usage("\(setting) takes yes or no, not '\(value)'")
            }
        }
        switch setting.lowercased() {
        case "merge-policy":
            guard let policy = MergePolicy(argument: value) else {
                throw CommandError.usage("merge-policy takes \(MergePolicy.allValueStrings.joined(separator: ", ")), not '\(value)'")
            }
            c.mergePolicy = policy
        case "retains-registered-objects": c.retainsRegisteredObjects = try flag()
        case "should-delete-inaccessible-faults": c.shouldDeleteInaccessibleFaults = try flag()
        case "staleness-interval":
            guard let seconds = TimeInterval(value) else { throw CommandError.usage("staleness-interval takes seconds, not '\(value)'") }
            c.stalenessInterval = seconds
        case "undo": c.undoEnabled = try flag()
        case "auto-merge": c.automaticallyMergesChanges = try flag() && c.parent == nil
        case "author": c.transactionAuthor = value
        case "bundle": c.bundleID = value
        default:
            throw CommandError.usage("unknown setting '\(setting)' (merge-policy, retains-registered-objects, "
                                     + "should-delete-inaccessible-faults, staleness-interval, undo, auto-merge, author, bundle)")
        }
    }
}

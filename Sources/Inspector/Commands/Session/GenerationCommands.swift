import ArgumentParser
import ManagedStore

public struct PinCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Pin a context to a query generation: a stable snapshot of the store.",
        discussion: """
            'pin' or 'pin current' pins the context to the newest generation, taken lazily at its next read \
            (fetch, count or fault). 'pin TOKEN' and 'pin CONTEXT' pin it to the generation of a token \
            (see 'token' and 'generations') or of another context: both then read the same snapshot. \
            A pinned context's fetches, counts and faults answer from its snapshot whatever other contexts \
            and processes commit; 'save' leaves it unpinned; 'reset' and merging another context's save pin it \
            again at the newest generation. Registered objects keep their values: 'refresh' updates them. \
            Only root contexts are pinned: a child reads through its parent's generation. A store in \
            rollback-journal mode cannot hold generations: the context stays unpinned, with a warning.
            """)

    @Argument(help: ArgumentHelp("current (the default), a generation token, or a context's name.", valueName: "generation"))
    public var generation: String = "current"
    @OptionGroup public var context: ContextOption

    public init() {}

    public func run(in session: Session) throws {
        let c = try context.resolve(in: session)
        if case .unsupported(let mode) = try c.pin(to: try session.contexts.generationChoice(generation)) {
            session.warn("the store is in \(mode) journal mode, not WAL: it cannot hold query generations, "
                         + "so context '\(c.name)' stays unpinned and reads the newest data (as Core Data does)")
        }
    }
}

public struct UnpinCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "unpin",
        abstract: "Unpin a context: its reads see the newest committed data again.",
        discussion: """
            'unpin' unpins the current context, 'unpin CONTEXT' (or 'unpin --context CONTEXT') the one named. \
            The generation expires when no context is pinned to it any more, and the WAL can be checkpointed past it.
            """)
    @Argument(help: ArgumentHelp("The context to unpin (the current one by default).", valueName: "context"))
    public var target: String?
    @OptionGroup public var context: ContextOption
    public init() {}
    public func run(in session: Session) throws {
        if let target, let named = context.context, named != target {
            throw CommandError.usage("unpin names two contexts, '\(target)' and --context \(named): name one")
        }
        try session.contexts.context(target ?? context.context).unpin()
    }
}

public struct TokenCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Print the context's query generation token, or 'unpinned'.")
    @OptionGroup public var context: ContextOption
    @OptionGroup public var output: FormatOption
    public init() {}

    public func run(in session: Session) throws {
        let token = try context.resolve(in: session).queryGenerationToken
        session.results(output).scalar("token", token.map(OutputValue.string) ?? .null, text: token ?? "unpinned")
    }
}

public struct GenerationsCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "generations",
        abstract: "List every generation the store's files hold (the main file, each commit of the -wal), then the session's live ones.",
        discussion: """
            Oldest first. w0 is the main file: the store as it was before the -wal's first frame, unless a \
            checkpoint has copied frames into it (the note says which). w1, w2, … are the transactions the \
            -wal committed, in order: each is the store exactly as it was after that save, and 'pin', 'diff' \
            and every read command's --generation take its token. For each: its frames, the pages it wrote, \
            the database's size in pages after it, per entity the objects it inserted, updated and deleted, \
            and, where the store keeps persistent history, the transaction's author, time and context. \
            Past the -wal's end: 'uncommitted' (a transaction that never committed) and 'earlier' (frames an \
            earlier WAL left before a checkpoint restarted it): listed, never readable as a generation. A \
            commit marked partial was overwritten in the main file by a checkpoint for some pages. Last, the \
            session's live generations (g1, …): the contexts pinned to each and how far each holds the WAL \
            back ('heldFrames', 'heldBytes': frames no checkpoint can copy while it lives).
            """)
    @OptionGroup public var output: FormatOption
    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        // The live generations' columns first, as before past ones were listed; the rest after.
        let writer = session.results(output).rows(["token", "contexts", "snapshot", "heldFrames", "heldBytes", "kind", "firstFrame", "lastFrame",
                                                   "pages", "size", "inserted", "updated", "deleted", "author", "time", "contextName", "note"])
        let timeline = try StoreTimeline.read(path: store.path)
        let counts = { (changes: CommitChanges?, key: KeyPath<CommitChanges.Counts, Int>) -> OutputValue in
            guard let changes else { return .null }
            return .object(changes.entities.sorted { $0.key < $1.key }.compactMap { $0.value[keyPath: key] > 0 ? ($0.key, .integer(Int64($0.value[keyPath: key]))) : nil })
        }
        try CommitChangeReader.read(store, timeline: timeline) { entry, changes in
            let transaction = changes?.transactions.first
            writer.row([.string(entry.token), .null, .null, .null, .null, .string(entry.kind.rawValue),
                        entry.frames.map { .integer(Int64($0.lowerBound)) } ?? .null, entry.frames.map { .integer(Int64($0.upperBound)) } ?? .null,
                        entry.kind == .commit ? .integer(Int64(entry.pagesWritten)) : .null,
                        entry.databasePages.map { .integer(Int64($0)) } ?? .null,
                        counts(changes, \.inserted), counts(changes, \.updated), counts(changes, \.deleted),
                        transaction?.author.map(OutputValue.string) ?? .null, transaction?.timestamp.map(OutputValue.date) ?? .null,
                        transaction?.contextName.map(OutputValue.string) ?? .null, entry.note.map(OutputValue.string) ?? .null])
        }
        let coordinator = session.contexts.coordinator
        for generation in coordinator.liveGenerations {
            let names = coordinator.contexts(pinnedTo: generation).map(\.name)
            let snapshot: OutputValue = generation.pastToken.map { .string($0) } ?? (!generation.isStarted ? .string("pending")
                : generation.snapshotFrame.map { .string("frame \($0)") } ?? .string("taken"))
            let held = generation.heldBack
            var note: OutputValue = .null
            if let past = generation.pastToken {
                note = .string("reads \(past) in place")
            } else if let frame = generation.snapshotFrame, let same = timeline.commits.first(where: { $0.lastFrame == frame }) {
                note = .string("the state of w\(same.ordinal)")
            }
            writer.row([.string(generation.token), .string(names.joined(separator: ",")), snapshot,
                        held.map { .integer(Int64($0.frames)) } ?? .null, held.map { .integer(Int64($0.bytes)) } ?? .null, .string("live"),
                        .null, generation.pastToken == nil ? generation.snapshotFrame.map { .integer(Int64($0)) } ?? .null : .null,
                        .null, .null, .null, .null, .null, .null, .null, .null, note])
        }
        writer.finish()
    }
}

extension GenerationsCommand {
    static let tool = ToolDeclaration(
        title: "List the store's past generations",
        description: "Every save the store's files still hold, oldest first: w0 (the main file), then w1, w2, … each transaction the "
            + "-wal committed, with its frames, pages, per entity the objects inserted, updated and deleted, and the history "
            + "transaction's author, time and context where the store keeps history; then what lies past the -wal's end. Every read "
            + "tool takes one of these tokens as 'generation' to read the store as it was after that save.",
        answersWithStoreContent: true,
        arguments: [],
        answer: .rows(.anyObject)
    ) { _ in try GenerationsCommand.parse([]) }
}

public struct DiffCommand: SessionCommand {
    public static let traits = CommandTraits(tool: tool)

    public static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "List the objects inserted, updated and deleted between two generations, or against another store.",
        discussion: """
            A and B are generation tokens, context names (a context's generation; an unpinned context's is \
            the newest), or 'current'. B defaults to the newest committed state. Changes are found from \
            Z_PK and Z_OPT, entity by entity: 'before' and 'after' are the row's Z_OPT in A and in B. \
            With --store OTHER (another store, a snapshot's folder, or the name of one of this store's \
            snapshots), the store is compared with OTHER object by object, as 'cdinspect diff STORE OTHER' \
            does: the objects OTHER has and this store not are 'inserted'.
            """)
    @Argument(help: ArgumentHelp("The older generation.", valueName: "A")) public var older: String?
    @Argument(help: ArgumentHelp("The newer generation (default: the newest).", valueName: "B")) public var newer: String?
    @Option(name: .customLong("store"), help: ArgumentHelp("Compare the store with another store or a snapshot instead.", valueName: "other"),
            completion: .file())
    public var otherStore: String?
    @OptionGroup public var storeDiff: StoreDiffOptions
    @OptionGroup public var output: FormatOption
    public init() {}

    public func run(in session: Session) throws {
        if let otherStore {
            guard older == nil, newer == nil else { throw CommandError.usage("diff --store compares stores: it takes no generations") }
            let other = try PersistentStore(path: try SnapshotLibrary.storePath(otherStore, beside: session.store), options: .init(readonly: true))
            defer { other.close() }
            return try storeDiff.compare(session.store, other, results: session.results(output))
        }
        guard let older else { throw CommandError.usage("diff needs a generation A, or --store OTHER") }
        if !storeDiff.matches.isEmpty || !storeDiff.entities.isEmpty { throw CommandError.usage("--match and --entity go with --store") }
        let coordinator = session.contexts.coordinator
        let (a, b) = (try generation(older, in: session), try newer.map { try generation($0, in: session) } ?? nil)
        let writer = session.results(output).rows(["change", "objectID", "before", "after"])
        try GenerationDiff.changes(coordinator, from: a, to: b) { change in
            writer.row([.string(change.kind.rawValue), .objectID(change.objectID.uri),
                        change.fromVersion.map(OutputValue.integer) ?? .null, change.toVersion.map(OutputValue.integer) ?? .null])
        }
        writer.finish()
    }

    /// A word's generation, as `pin` reads the word; nil is the newest state.
    func generation(_ word: String, in session: Session) throws -> Generation? {
        if word.lowercased() == "newest" { return nil }
        switch try session.contexts.generationChoice(word) {
        case .current: return nil
        case .context(let context): return context.readingGeneration
        case .token(let token):
            return try session.contexts.coordinator.generation(resolving: token)
        }
    }
}

extension DiffCommand {
    static let tool = ToolDeclaration(
        title: "Compare with a snapshot or another store",
        description: "What changed between the server's store and another: a snapshot (a name the snapshots tool lists, or a "
            + "snapshot's folder) or another store file, on the server's machine. One record per object that differs, the changes "
            + "that turn the server's store into the other: inserted and deleted objects whole, updated ones with each changed "
            + "attribute and to-one old and new and each to-many's added and removed members; then a summary (whether they "
            + "differ, the models' differences, entities not compared). Objects are matched by primary key for one store's "
            + "copies, otherwise by 'match', the uniqueness constraint or a UUID attribute id.",
        answersWithStoreContent: true,
        arguments: [ToolArgument("other", .string, "The other side: a snapshot's name or folder, or a store file.", required: true),
                    ToolArgument("match", .list, "ENTITY=KEY pairs (comma-separated keys need the array form) to match objects by across stores."),
                    ToolArgument("entity", .list, "Only these entities.")],
        answer: .rows(.anyObject)
    ) { a in
        var command = try DiffCommand.parse([])
        command.otherStore = a.text("other")
        if case .array(let matches)? = a.values["match"] {
            command.storeDiff.matches = matches.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        } else if let match = a.text("match") {
            command.storeDiff.matches = [match]
        }
        command.storeDiff.entities = a.items("entity")
        return command
    }
}

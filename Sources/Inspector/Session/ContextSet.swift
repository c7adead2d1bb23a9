import ManagedStore

/// The session's named contexts over one coordinator. A session starts with `main` (the
/// current one) and `background`: root contexts that merge each other's saves, as the
/// seed's CoreDataStack keeps its main and background contexts in sync.
public final class ContextSet {
    public let coordinator: Coordinator
    public private(set) var contexts: [Context] = []
    public private(set) var current: Context
    /// What each context's last fetch or `get` returned, held as the app would hold the
    /// array a fetch returns; that is what keeps unchanged registered objects alive. At
    /// most `resultLimit` objects are kept: a larger fetch still streams past.
    private var results: [ObjectIdentifier: [ManagedObject]] = [:]
    private var incoming: [ObjectIdentifier: [ManagedObject]] = [:]
    public static let resultLimit = 10_000
    /// The contexts every session starts with: `main` (current) and `background`.
    public static let initialNames = ["main", "background"]
    /// The transaction author of every context's writes until `context set author` changes it.
    public static let author = "cdinspect"

    public init(store: PersistentStore) {
        coordinator = Coordinator(store: store)
        let main = Context(name: ContextSet.initialNames[0], coordinator: coordinator, mergePolicy: .error)
        let background = Context(name: ContextSet.initialNames[1], coordinator: coordinator, mergePolicy: .error)
        main.automaticallyMergesChanges = true
        main.transactionAuthor = ContextSet.author
        background.transactionAuthor = ContextSet.author
        background.automaticallyMergesChanges = true
        contexts = [main, background]
        current = main
    }

    public func named(_ name: String) throws -> Context {
        guard let context = contexts.first(where: { $0.name == name }) else { throw ContextError.unknownContext(name) }
        return context
    }

    /// The context a command names with `--context`, else the current one.
    public func context(_ name: String?) throws -> Context {
        try name.map(named) ?? current
    }

    /// What a word names for `pin` and `diff`: `current`, else a context's name or a
    /// generation token; a word that is both is ambiguous.
    public func generationChoice(_ word: String) throws -> GenerationChoice {
        if word.lowercased() == "current" { return .current }
        let context = try? named(word)
        let isToken = coordinator.generation(token: word) != nil || StoreTimeline.isPastToken(word)
        switch (context, isToken ? word : nil) {
        case (let context?, nil): return .context(context)
        case (nil, _): return .token(word)
        case (_?, _?): throw CommandError.usage("'\(word)' names both a context and a generation token")
        }
    }

    @discardableResult
    public func add(_ name: String, parent: String?, mergePolicy: MergePolicy) throws -> Context {
        // A blank name could be neither shown in the prompt nor given to --context.
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw CommandError.usage("a context needs a name that is not empty or blank")
        }
        guard !contexts.contains(where: { $0.name == name }) else { throw ContextError.contextExists(name) }
        let context = Context(name: name, coordinator: coordinator, parent: try parent.map(named), mergePolicy: mergePolicy)
        context.transactionAuthor = ContextSet.author
        contexts.append(context)
        return context
    }

    public func use(_ name: String) throws {
        current = try named(name)
    }

    public func drop(_ name: String) throws {
        let context = try named(name)
        if context === current { throw ContextError.cannotDrop(name, why: "it is the current context (context use another first)") }
        if let child = contexts.first(where: { $0.parent === context }) {
            throw ContextError.cannotDrop(name, why: "context '\(child.name)' is its child")
        }
        dropResult(context)
        // Its generation expires now, not whenever the last reference to the context goes.
        if context.parent == nil { context.unpin() }
        contexts.removeAll { $0 === context }
    }

    /// Collects a command's result for a context; the previous result is let go only when
    /// the new one is complete, as `results = try context.fetch(request)` does in an app.
    /// `hold` is given the way to get each object and calls it only while the result has
    /// room, so the rows of a larger fetch stream past without objects being made for them;
    /// it returns false once the result is full, and a caller stops asking.
    public func collectResult<T>(in context: Context,
                                 _ body: (_ hold: (() throws -> ManagedObject) throws -> Bool) throws -> T) throws -> T {
        let key = ObjectIdentifier(context)
        incoming[key] = []
        defer { results[key] = incoming.removeValue(forKey: key) }
        return try body { object in
            guard incoming[key, default: []].count < ContextSet.resultLimit else { return false }
            incoming[key, default: []].append(try object())
            return incoming[key, default: []].count < ContextSet.resultLimit
        }
    }

    /// Lets go of a context's last result (after `reset`).
    public func dropResult(_ context: Context) {
        results[ObjectIdentifier(context)] = nil
    }
}

import Foundation
import ManagedStore

/// The state every front end shares: the open store, the output format and where output
/// and diagnostics go. The REPL, a script and a one-shot subcommand each make one and send
/// it commands; nothing here knows which of them is talking.
public final class Session {
    public let store: PersistentStore
    public var format: OutputFormat
    public let output: OutputSink
    /// Warnings and notes for stderr (`cdinspect: warning: …`).
    public let warn: (String) -> Void
    /// Whether commands go through managed object contexts. A one-shot subcommand has no
    /// later command to see registered objects or pending changes, so it reads the store
    /// directly, which gives the same answers without registering a million objects.
    public let usesContexts: Bool
    private var contextSet: ContextSet?
    /// The last batch request's result, whose object IDs `merge` merges by default.
    public var lastBatch: BatchResult?

    public init(store: PersistentStore, format: OutputFormat = .table, output: OutputSink,
                warn: @escaping (String) -> Void, usesContexts: Bool = true) {
        self.store = store
        self.format = format
        self.output = output
        self.warn = warn
        self.usesContexts = usesContexts
        // Said once, when the store is opened, whichever front end opened it.
        for warning in store.warnings {
            if case .unreadableModelCache = warning { warn("\(warning) (give --model to use the app's model)") } else { warn("\(warning)") }
        }
    }

    /// The named contexts, made when a command first needs one.
    public var contexts: ContextSet {
        if let contextSet { return contextSet }
        let made = ContextSet(store: store)
        contextSet = made
        return made
    }

    /// Runs one parsed command; output is flushed when it returns, whatever happened.
    public func run(_ command: SessionCommand) throws {
        Cancellation.commandStarted()
        defer {
            Cancellation.commandEnded()
            output.flush()
        }
        try command.run(in: self)
    }

    public func format(_ override: OutputFormat?) -> OutputFormat {
        override ?? format
    }
}

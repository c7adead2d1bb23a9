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

    public init(store: PersistentStore, format: OutputFormat = .table, output: OutputSink,
                warn: @escaping (String) -> Void) {
        self.store = store
        self.format = format
        self.output = output
        self.warn = warn
    }

    /// Runs one parsed command; output is flushed when it returns, whatever happened.
    public func run(_ command: SessionCommand) throws {
        defer { output.flush() }
        try command.run(in: self)
    }

    public func format(_ override: OutputFormat?) -> OutputFormat {
        override ?? format
    }
}

import Foundation
import ManagedStore

/// The state every front end shares: the open store, the output format and where output
/// and diagnostics go. The REPL, a script and a one-shot subcommand each make one and send
/// it commands; nothing here knows which of them is talking.
public final class Session {
    public let store: PersistentStore
    public var format: OutputFormat
    /// How the session shows dates (`dates` in a session); a command's `--time-zone` and
    /// `--stored-dates` override it for that command.
    public var dates = DateStyle.utc
    public let output: OutputSink
    /// Warnings for stderr (`cdinspect: warning: …`).
    public let warn: (String) -> Void
    /// What a long-running command says about itself on stderr (`cdinspect: …`): that a
    /// watch is now following the store. Not a warning, and never on standard output.
    public let note: (String) -> Void
    /// A one-shot subcommand (or a tool call) is a session of one command. It runs the
    /// same code as in a session, but nothing after it can see the objects a fetch returns
    /// or the IDs a batch request changed, so it keeps neither.
    public let runsOneCommand: Bool
    private var contextSet: ContextSet?
    /// The last batch request's result, whose object IDs `merge` merges by default.
    public var lastBatch: BatchResult?
    /// The store's quirks already warned of (`warnOnce`).
    private var quirksWarned: Set<String> = []

    /// A warning about the store itself rather than the command (a quirk of its history's
    /// numbering, say): said the first time a command meets it in this session, not on
    /// every command that meets it again.
    public func warnOnce(_ text: String) {
        if quirksWarned.insert(text).inserted { warn(text) }
    }

    public init(store: PersistentStore, format: OutputFormat = .table, output: OutputSink,
                warn: @escaping (String) -> Void, note: @escaping (String) -> Void = Session.standardErrorNote,
                runsOneCommand: Bool = false) {
        self.store = store
        self.format = format
        self.output = output
        self.warn = warn
        self.note = note
        self.runsOneCommand = runsOneCommand
        // Said once, when the store is opened, whichever front end opened it.
        for warning in store.warnings {
            if warning.isNote {
                note("\(warning)")
            } else if case .unreadableModelCache = warning { warn("\(warning) (give --model to use the app's model)") } else { warn("\(warning)") }
        }
    }

    /// Notes as the command line says them: on stderr, after the program's name.
    public static func standardErrorNote(_ text: String) {
        FileHandle.standardError.writeIgnoringErrors(Data("cdinspect: \(text)\n".utf8))
    }

    /// The named contexts, made when a command first needs one.
    public var contexts: ContextSet {
        if let contextSet { return contextSet }
        let made = ContextSet(store: store)
        // Said before the first write goes in: once it ends, SQLite checkpoints the -wal into
        // the main file, and the saves it held can no longer be read as generations.
        let warn = self.warn
        made.coordinator.willFoldPastGenerations = { commits in
            warn("the -wal holds \(commits) earlier save\(commits == 1 ? "" : "s") (w1…w\(commits), see 'generations'); this write "
                 + "checkpoints \(commits == 1 ? "it" : "them") into the main file, after which \(commits == 1 ? "it" : "they") cannot be read "
                 + "as past generations (copy the store with its -wal and -shm first to keep them)")
        }
        contextSet = made
        return made
    }

    /// Runs one parsed command; output is flushed when it returns, whatever happened.
    public func run(_ command: SessionCommand) throws {
        Cancellation.commandStarted()
        output.dateStyle = dates
        defer {
            Cancellation.commandEnded()
            output.flush()
            // Said after the command, whichever front end ran it: what a write repaired or
            // swept beside what it was asked to do.
            for done in store.takeUpkeep() { note("\(done)") }
        }
        try command.run(in: self)
    }

    /// Closes the store's connections, when the session is over and the process is about
    /// to exit: nothing can be read afterwards.
    public func close() {
        if let contextSet { contextSet.coordinator.close() } else { store.close() }
    }

    /// Where a command's answer goes, in the format its `--format` asks for or the
    /// session's: the command hands over what it found and never reads the format itself.
    public func results(_ option: FormatOption) -> Results {
        output.dateStyle = option.dates(over: dates)
        return Results(format: option.format ?? format, sink: output)
    }

    /// Results in `format`, or the session's, with the session's dates: for a command whose
    /// `--format` takes more than the output formats (`model graph`).
    public func results(format: OutputFormat?) -> Results {
        Results(format: format ?? self.format, sink: output)
    }

    /// Results in the session's format, for a command whose `--format` names something
    /// else (import's input).
    public func results() -> Results {
        Results(format: format, sink: output)
    }
}

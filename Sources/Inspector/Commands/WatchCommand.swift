import ArgumentParser
import Foundation
import ManagedStore

public struct WatchCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow the store as other processes commit: each inserted, updated and deleted object, as it happens.",
        discussion: """
            A generation that advances: watch holds a snapshot, sleeps until the store's change counter moves \
            (the WAL index in WAL mode, the file change counter in rollback mode; it never spins), lists what \
            changed between the old and the new snapshot, and moves on. An update shows the changed keys with \
            old → new values. On a store with persistent history, each change names the transaction's author, \
            context and process (a writer that records no history, such as the sqlite3 shell, shows none). \
            Lines are flushed as they happen; --format json prints one JSON object per line (JSON Lines). \
            Ctrl-C ends it; --limit and --timeout end it too, for scripts.
            """)

    @Argument(help: "The entity to watch (with its sub-entities); all entities when left out.", completion: EntityCompletion.kind)
    public var entity: String?
    @OptionGroup public var predicate: PredicateOptions
    @Option(name: .long, parsing: .unconditional, help: "Stop after N changes.", transform: ObjectCount.parse)
    public var limit: Int?
    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"),
            transform: { text in
                guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                    throw CommandError.usage("--timeout takes a number of seconds, not '\(text)'")
                }
                return seconds
            })
    public var timeout: Double?
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        let entity = try self.entity.map(store.entity)
        let predicate = try self.predicate.predicate(warn: session.warn)
        if predicate != nil && entity == nil { throw CommandError.usage("--where needs an ENTITY to watch") }
        let watcher = StoreWatcher(store: store, entity: entity, predicate: predicate, predicateText: self.predicate.text)
        let printer = WatchPrinter(format: session.format(output.format), sink: session.output)
        var seen = 0
        do {
            try watcher.run(until: timeout.map { Date(timeIntervalSinceNow: $0) }) { event in
                printer.print(event)
                seen += 1
                return limit.map { seen < $0 } ?? true
            }
        } catch where Cancellation.isInterruption(error) {
            // Ctrl-C is how a watch ends: what was printed stands.
        }
        printer.finish()
    }
}

/// Watch lines, flushed one by one: a line of text, a CSV row, or a JSON object per line.
final class WatchPrinter {
    let format: OutputFormat
    let sink: OutputSink
    private var rows: RowWriter?
    static let columns = ["time", "type", "objectID", "changes", "author", "contextName", "processID"]

    init(format: OutputFormat, sink: OutputSink) {
        self.format = format
        self.sink = sink
        if format == .csv {
            rows = RowWriter(columns: WatchPrinter.columns, format: .csv, sink: sink)
            sink.flush()
        }
    }

    func print(_ event: WatchEvent) {
        let time = OutputValue.date(Date().timeIntervalSinceReferenceDate)
        let type = event.kind == .inserted ? "insert" : event.kind == .updated ? "update" : "delete"
        let t = event.transaction
        switch format {
        case .json:
            let changes = OutputValue.object(event.changes.map { change in
                (change.key, .object([("old", change.old.map { OutputValue($0) } ?? .null), ("new", change.new.map { OutputValue($0) } ?? .null)]))
            })
            var pairs: [(String, OutputValue)] = [("time", time), ("type", .string(type)), ("objectID", .objectID(event.objectID.uri)),
                                                  ("changes", changes)]
            pairs += [("token", t.map { .integer($0.token) } ?? .null), ("author", HistoryRows.text(t?.author)),
                      ("contextName", HistoryRows.text(t?.contextName)), ("processID", HistoryRows.text(t?.processID))]
            sink.line(OutputValue.object(pairs).jsonText)
        case .csv:
            rows?.row([time, .string(type), .objectID(event.objectID.uri), .string(summary(event)), HistoryRows.text(t?.author),
                       HistoryRows.text(t?.contextName), HistoryRows.text(t?.processID)])
        case .table, .line:
            var line = "\(time.text)  \(type)  \(event.objectID.uri)  \(summary(event))"
            if let t {
                line += "  (transaction \(t.token) by \(t.author ?? "no author"), context \(t.contextName ?? "unnamed"), process \(t.processID ?? "unknown"))"
            }
            sink.line(line)
        }
        sink.flush()
    }

    /// `age: 30 → 31; name: "a" → "b"` for an update, `key=value, …` for an insert or delete.
    private func summary(_ event: WatchEvent) -> String {
        func text(_ value: ObjectValue?) -> String {
            guard let value else { return "NULL" }
            let shown = OutputValue(value)
            switch shown {
            case .string, .uuid: return shown.jsonText
            default: return shown.text
            }
        }
        switch event.kind {
        case .updated: return event.changes.map { "\($0.key): \(text($0.old)) → \(text($0.new))" }.joined(separator: "; ")
        case .inserted: return event.changes.map { "\($0.key)=\(text($0.new))" }.joined(separator: ", ")
        case .deleted: return event.changes.map { "\($0.key)=\(text($0.old))" }.joined(separator: ", ")
        }
    }

    func finish() { sink.flush() }
}

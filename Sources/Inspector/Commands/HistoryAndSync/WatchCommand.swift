import ArgumentParser
import Foundation
import ManagedStore

public struct WatchCommand: SessionCommand {
    public static let traits = CommandTraits(group: .historyAndSync)

    public static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow the store as other processes commit: each inserted, updated and deleted object, as it happens.",
        discussion: """
            watch holds nothing of the store between looks (no read transaction, no lock), so an app's \
            checkpoints and writes go on as if it were not there. It sleeps until the store's change counter \
            moves (the WAL index in WAL mode, the file change counter in rollback mode; it never spins), then \
            looks at the rows that can have changed: in WAL mode those on the pages the new -wal frames wrote. \
            Changes made between two looks merge into one: an object inserted and then updated shows as one \
            insert with its newest values. It keeps a hash of each value, not the values, so an update shows \
            the changed keys with their new values; a to-many relationship that changed shows its objects now. \
            With --where, an object that starts to match shows as 'enters' and one that stops as 'leaves', as a \
            fetched results controller reports a move into or out of its fetch. On a store with persistent \
            history, each change names the transaction's author, context and process (a writer that records no \
            history, such as the sqlite3 shell, shows none). Lines are flushed as they happen; --format json \
            prints one JSON object per line (JSON Lines). Ctrl-C ends it; --limit and --timeout end it too, for \
            scripts. A store deleted or replaced while watched ends it with an error (exit 1).
            """)

    @Argument(help: "The entity to watch (with its sub-entities); all entities when left out.", completion: EntityCompletion.kind)
    public var entity: String?
    @OptionGroup public var predicate: PredicateOptions
    @Option(name: .long, parsing: .unconditional, help: "Stop after N changes.", transform: ObjectCount.parse)
    public var limit: Int?
    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"),
            transform: Seconds.parse)
    public var timeout: Double?
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let store = session.store
        let entity = try self.entity.map(store.entity)
        let predicate = try self.predicate.predicate(entity: entity?.name, model: store.model, store: store, warn: session.warn)
        if predicate != nil && entity == nil { throw CommandError.usage("--where needs an ENTITY to watch") }
        let watcher = StoreWatcher(store: store, entity: entity, predicate: predicate, predicateText: self.predicate.text)
        let printer = WatchPrinter(session.results(output))
        var seen = 0
        do {
            let what = entity.map { "\($0.name) in \(store.path)" } ?? store.path
            try watcher.run(until: timeout.map { Date(timeIntervalSinceNow: $0) },
                            ready: { session.note("watching \(what) as other processes commit; Ctrl-C stops") }) { event in
                printer.print(event)
                seen += 1
                return limit.map { seen < $0 } ?? true
            }
        } catch where Cancellation.isInterruption(error) {
            // Ctrl-C is how a watch ends: what was printed stands.
        }
        session.output.flush()
    }
}

/// Watch events as the output layer shows them: a JSON object, a CSV row or a sentence each.
struct WatchPrinter {
    let events: EventStream
    static let columns = ["time", "type", "objectID", "changes", "author", "contextName", "processID"]

    init(_ results: Results) {
        events = results.events(columns: WatchPrinter.columns)
    }

    func print(_ event: WatchEvent) {
        let time = OutputValue.date(Date().timeIntervalSinceReferenceDate)
        let type = event.kind.rawValue
        let t = event.transaction
        events.emit(value: {
            let changes = OutputValue.object(event.values.map { key, value in (key, .object([("new", OutputValue(value))])) })
            var pairs: [(String, OutputValue)] = [("time", time), ("type", .string(type)), ("objectID", .objectID(event.objectID.uri))]
            pairs.append(("changes", changes))
            pairs.append(("token", t.map { .integer($0.token) } ?? .null))
            pairs.append(("author", HistoryRows.text(t?.author)))
            pairs.append(("contextName", HistoryRows.text(t?.contextName)))
            pairs.append(("processID", HistoryRows.text(t?.processID)))
            return .object(pairs)
        }, row: {
            [time, .string(type), .objectID(event.objectID.uri), .string(summary(event)), HistoryRows.text(t?.author),
             HistoryRows.text(t?.contextName), HistoryRows.text(t?.processID)]
        }, sentence: {
            var line = "\(time.text)  \(type)  \(event.objectID.uri)"
            let described = summary(event)
            if !described.isEmpty { line += "  " + described }
            if let t {
                line += "  (transaction \(t.token) by \(t.author ?? "no author"), context \(t.contextName ?? "unnamed"), process \(t.processID ?? "unknown"))"
            }
            return line
        })
    }

    /// `age → 31; name → "b"` for an update, `key=value, …` for an insert or an object that
    /// entered; nothing for a delete or one that left.
    private func summary(_ event: WatchEvent) -> String {
        func text(_ value: ObjectValue) -> String {
            let shown = OutputValue(value)
            switch shown {
            case .string, .uuid: return shown.jsonText
            default: return shown.text
            }
        }
        switch event.kind {
        case .updated: return event.values.map { "\($0.key) → \(text($0.value))" }.joined(separator: "; ")
        case .inserted, .entered: return event.values.map { "\($0.key)=\(text($0.value))" }.joined(separator: ", ")
        case .deleted, .left: return ""
        }
    }
}

import ArgumentParser
import ManagedStore

public struct HistoryCommand: SessionCommand {
    public static let traits = CommandTraits(group: .historyAndSync, tool: tool, views: ["purge"])

    public static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the store's persistent history: who changed what, and when.",
        discussion: """
            Reads ATRANSACTION and ACHANGE as NSPersistentHistoryChangeRequest does. By default one row per \
            transaction: its token (what 'history --after TOKEN' and an app's history token name), time (UTC), \
            author, context name, bundle ID, process and the number of inserts, updates and deletes. With \
            --changes, one row per change: type, entity (the object's own sub-entity), object ID, the properties \
            an update changed (a bit of ZCOLUMNS that cannot be named shows as #N) and a delete's tombstone \
            values. Filters combine; --entity, --object and --type keep only transactions with a matching \
            change, and count only those. In JSON, changes are nested in their transaction. \
            'history purge --before TOKEN|DATE' deletes history as NSPersistentHistoryChangeRequest.deleteHistory(before:) \
            does: the transactions up to and including TOKEN (or older than DATE), their changes, and the interned \
            strings no remaining transaction names, in one SQLite transaction; --dry-run says what would go and \
            deletes nothing. A purge is for good: an app, extension or widget whose last history token is older than \
            what is left gets NSPersistentHistoryTokenExpiredError (134301) and must refetch everything, and \
            NSPersistentCloudKitContainer never exports changes it had not exported yet (cloudkit shows the token it \
            reached). Refused on a store opened --readonly and while a context is pinned to a query generation.
            """)

    @Argument(help: ArgumentHelp("purge, to delete history; leave out to list it.", valueName: "action"),
              completion: .list(["purge"]))
    public var action: String?
    @Option(name: .long, help: ArgumentHelp("For purge: delete the transactions up to this token, or older than this date.",
                                            valueName: "token-or-date"))
    public var before: String?
    @Flag(name: .customLong("dry-run"), help: "For purge: say what would be deleted, and delete nothing.")
    public var dryRun = false

    @Flag(name: .long, help: "One row per change instead of per transaction.")
    public var changes = false
    @Option(name: .long, help: ArgumentHelp("Only transactions after this token.", valueName: "token"))
    public var after: String?
    @Option(name: .long, help: ArgumentHelp("Only transactions at or after this time (ISO 8601, UTC unless it says).", valueName: "date"))
    public var since: String?
    @Option(name: .long, help: ArgumentHelp("Only transactions at or before this time.", valueName: "date"))
    public var until: String?
    @Option(name: .long, help: "Only transactions with this author (transactionAuthor).")
    public var author: String?
    @Option(name: .customLong("context-name"), help: "Only transactions saved by a context of this name.")
    public var contextName: String?
    @Option(name: .long, help: "Only changes of this entity and its sub-entities.")
    public var entity: String?
    @Option(name: .long, help: ArgumentHelp("Only changes of this object (Entity/pN or its URI): its whole life.", valueName: "id"))
    public var object: String?
    @Option(name: .long, help: "Only changes of this type: insert, update or delete.",
            transform: { text in
                guard let type = HistoryChangeType(name: text) else { throw CommandError.usage("--type takes insert, update or delete") }
                return type
            })
    public var type: HistoryChangeType?
    @Option(name: .long, parsing: .unconditional, help: "At most N rows (transactions, or changes with --changes).",
            transform: ObjectCount.parse)
    public var limit: Int?
    @Option(name: .long, parsing: .unconditional, help: "Pass over the first N rows (transactions, or changes with --changes).",
            transform: ObjectCount.parse)
    public var offset: Int?
    @OptionGroup public var output: FormatOption

    public init() {}

    public func query(_ store: PersistentStore) throws -> HistoryQuery {
        var query = HistoryQuery()
        query.after = try after.map(HistoryQuery.token(parsing:))
        query.since = try since.map(HistoryQuery.date(parsing:))
        query.until = try until.map(HistoryQuery.date(parsing:))
        query.author = author
        query.contextName = contextName
        query.entity = try entity.map(store.entity)
        query.object = try object.map { try HistoryQuery.object(parsing: $0, store: store) }
        query.type = type
        query.limit = limit == 0 ? nil : limit
        query.offset = offset
        return query
    }

    public func run(in session: Session) throws {
        switch action {
        case nil:
            if before != nil || dryRun { throw CommandError.usage("--before and --dry-run belong to 'history purge'") }
        case "purge":
            return try purge(in: session)
        case let other?:
            throw CommandError.usage("history takes 'purge' or nothing before its options, not '\(other)'")
        }
        do {
            try list(in: session)
        } catch HistoryListing.enough {
            // The receiver has the rows it wanted.
        }
    }

    private func purge(in session: Session) throws {
        guard let before else { throw CommandError.usage("history purge needs --before TOKEN or --before DATE") }
        if changes || after != nil || since != nil || until != nil || author != nil || contextName != nil || entity != nil
            || object != nil || type != nil || limit != nil || offset != nil {
            throw CommandError.usage("history purge takes only --before and --dry-run")
        }
        let boundary: HistoryPurge.Boundary
        if let token = Int64(before.trimmingCharacters(in: .whitespaces)) {
            boundary = .token(token)
        } else {
            boundary = .date(try HistoryQuery.date(parsing: before))
        }
        let result: HistoryPurge.Result
        if dryRun {
            let purge = try HistoryPurge(store: session.store)
            result = try session.store.read { try purge.preview(boundary, $0) }
        } else {
            result = try session.contexts.coordinator.purgeHistory(before: boundary)
        }
        let pairs: [(String, OutputValue)] = [
            ("dryRun", .bool(dryRun)), ("transactions", .integer(result.transactions)), ("changes", .integer(result.changes)),
            ("strings", .integer(result.strings)), ("oldestKept", result.oldestKept.map(OutputValue.integer) ?? .null),
        ]
        let record: () -> [ReportPart] = { [.record(pairs)] }
        session.results(output).report(Report(value: { .object(pairs) }, people: {
            let verb = dryRun ? "would delete" : "deleted"
            return [.line("\(verb) \(result.transactions) transaction(s), \(result.changes) change(s) and \(result.strings) string(s); "
                          + (result.oldestKept.map { "the oldest transaction kept is \($0)" } ?? "no transaction is kept"))]
        }, csv: record, lines: record))
    }

    private func list(in session: Session) throws {
        let history = try PersistentHistory(store: session.store)
        let query = try query(session.store)
        let results = session.results(output)
        try session.store.read { db in
            // Where the store's own history numbers to-many bits otherwise, said once.
            if changes { session.store.learnedToManyOrder(db).notes.forEach(session.warnOnce) }
            if !changes {
                let writer = results.rows(HistoryRows.transactionColumns + ["inserts", "updates", "deletes"])
                try history.transactions(query, db) { t in
                    guard writer.wantsMore else { throw HistoryListing.enough }
                    writer.row(HistoryRows.values(t) + [.integer(Int64(t.inserts)), .integer(Int64(t.updates)), .integer(Int64(t.deletes))])
                }
                writer.finish()
            } else {
                // One record shape: each change with its transaction nested in it; JSON nests
                // the changes in their transactions instead, the other formats list them flat,
                // each with its transaction's time and author, so a CSV merges into a timeline.
                let rows = results.groupedRows(["token", "timestamp", "author", "type", "entity", "objectID", "updated", "tombstone"])
                let nested = NestedChangeWriter(store: session.store)
                try history.changes(query, db) { transaction, change in
                    let more = rows.add(record: {
                        .object([("transaction", .object(Array(zip(HistoryRows.transactionColumns, HistoryRows.values(transaction))))),
                                 ("change", .object(HistoryRows.change(change, store: session.store)))])
                    }, json: { nested.write(transaction, change, to: $0) }, row: {
                        [.integer(change.token), transaction.timestamp.map(OutputValue.date) ?? .null, HistoryRows.text(transaction.author)]
                            + HistoryRows.change(change, store: session.store).map(\.1)
                    })
                    guard more else { throw HistoryListing.enough }
                }
                rows.finish(json: nested.finish)
            }
        }
    }
}

/// A listing's receiver wants no more rows: the reading stops there.
private enum HistoryListing: Error {
    case enough
}

/// How history rows print, shared by `history` and `watch`.
enum HistoryRows {
    static let transactionColumns = ["token", "timestamp", "author", "contextName", "bundleID", "processID"]

    static func values(_ t: HistoryTransaction) -> [OutputValue] {
        [.integer(t.token), t.timestamp.map(OutputValue.date) ?? .null, text(t.author), text(t.contextName),
         text(t.bundleID), text(t.processID)]
    }

    static func text(_ s: String?) -> OutputValue { s.map(OutputValue.string) ?? .null }

    /// type, entity, objectID, updated, tombstone.
    static func change(_ c: HistoryChange, store: PersistentStore) -> [(String, OutputValue)] {
        let entity = c.entityName ?? "#\(c.entityNumber)"
        return [
            ("type", .string(c.type?.name ?? "#\(c.storedType)")),
            ("entity", .string(entity)),
            ("objectID", .objectURI(prefix: ObjectID.uriPrefix(storeUUID: store.uuid, entityName: entity), key: c.primaryKey)),
            ("updated", c.updatedProperties.map { .array($0.map(OutputValue.string)) } ?? .null),
            ("tombstone", c.tombstone.isEmpty ? .null : .object(c.tombstone.map { ($0.name, OutputValue($0.value)) })),
        ]
    }
}

/// `history --changes --format json`: one object per transaction with its changes nested,
/// written as the changes stream in (a transaction may hold a million of them). Each change
/// is written straight into the sink, the same JSON `HistoryRows.change` describes, with
/// what repeats (an entity's name and object URI prefix) rendered once per entity.
final class NestedChangeWriter {
    let store: PersistentStore
    private var current: Int64?
    private var transactions = 0
    /// Per entity number: `"entity": "Name", "objectID": "x-coredata://…/Name/p`.
    private var entityPieces: [Int64: String] = [:]

    init(store: PersistentStore) {
        self.store = store
    }

    func write(_ transaction: HistoryTransaction, _ change: HistoryChange, to sink: OutputSink) {
        if current != transaction.token {
            if current != nil { sink.write("\n  ]}") }
            sink.write(transactions == 0 ? "[\n  {" : ",\n  {")
            for (i, (key, value)) in zip(HistoryRows.transactionColumns, HistoryRows.values(transaction)).enumerated() {
                sink.write(i == 0 ? "\"" : ", \"")
                sink.write(key)
                sink.write("\": ")
                value.writeJSON(to: sink)
            }
            sink.write(", \"changes\": [\n    ")
            current = transaction.token
            transactions += 1
        } else {
            sink.write(",\n    ")
        }
        guard change.tombstone.isEmpty else {
            sink.write(OutputValue.object(HistoryRows.change(change, store: store)).jsonText)
            return
        }
        switch change.type {
        case .insert?: sink.write("{\"type\": \"insert\", ")
        case .update?: sink.write("{\"type\": \"update\", ")
        case .delete?: sink.write("{\"type\": \"delete\", ")
        case nil: sink.write("{\"type\": \"#\(change.storedType)\", ")
        }
        sink.write(entityPiece(change))
        sink.integer(change.primaryKey)
        sink.write("\", \"updated\": ")
        if let updated = change.updatedProperties {
            sink.byte(91)  // [
            for (i, name) in updated.enumerated() {
                sink.write(i == 0 ? "\"" : ", \"")
                sink.jsonEscaped(name)
                sink.byte(34)
            }
            sink.byte(93)  // ]
        } else {
            sink.write("null")
        }
        sink.write(", \"tombstone\": null}")
    }

    private func entityPiece(_ change: HistoryChange) -> String {
        if let known = entityPieces[change.entityNumber] { return known }
        let entity = change.entityName ?? "#\(change.entityNumber)"
        let piece = "\"entity\": " + OutputValue.string(entity).jsonText + ", \"objectID\": "
            + String(OutputValue.string(ObjectID.uriPrefix(storeUUID: store.uuid, entityName: entity)).jsonText.dropLast())
        entityPieces[change.entityNumber] = piece
        return piece
    }

    func finish(to sink: OutputSink) {
        if current != nil { sink.write("\n  ]}") }
        sink.line(transactions == 0 ? "[]" : "\n]")
    }
}

extension HistoryCommand: PagedCommand {
    static let tool = ToolDeclaration(
        title: "Persistent history",
        description: "Persistent history: transactions, or with changes=true each transaction with its changes (counted as rows).",
        answersWithStoreContent: true,
        arguments: [ToolArgument("changes", .boolean, "Each transaction with its changes."),
                    ToolArgument("after", .string, "Only after this token."),
                    ToolArgument("since", .string, "ISO 8601 date."),
                    ToolArgument("until", .string, "ISO 8601 date."),
                    ToolArgument("author", .string, "Transaction author."),
                    ToolArgument("contextName", .string, "Context name."),
                    ToolArgument("entity", .string, "Only changes of this entity."),
                    ToolArgument("object", .string, "Only changes of this object ID."),
                    ToolArgument("type", .string, "insert, update or delete."),
                    .limit, .cursor],
        rowsKey: "transactions",
        answer: .object([("token", .integer), ("timestamp", .nullable(.string)), ("author", .nullable(.string)), ("changes", .array(.anyObject))], required: ["token"]),
        view: .history
    ) { a in
        var command = try HistoryCommand.parse([])
        command.changes = a.flag("changes")
        command.after = a.text("after")
        command.since = a.text("since")
        command.until = a.text("until")
        command.author = a.text("author")
        command.contextName = a.text("contextName")
        command.entity = a.text("entity")
        command.object = a.text("object")
        if let type = a.text("type") {
            guard let parsed = HistoryChangeType(name: type) else { throw CommandError.usage("history: 'type' takes insert, update or delete") }
            command.type = parsed
        }
        return command
    }

    public mutating func page(offset: Int, limit: Int) {
        (self.offset, self.limit) = (offset, limit)
    }
}

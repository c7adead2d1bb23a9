import Foundation
import Inspector
import MCP
import ManagedStore

/// One tool's answer: the JSON text the command prints (a page of its rows, for a tool with
/// rows), the same rows as structured content where the tool declares its shape (made from
/// the rows' values, not read back from the text), and the warnings the command line would
/// print on stderr.
struct ToolAnswer {
    var text: String
    var structured: Value?
    var warnings: [String]

    /// Runs the tool's session command on `store`, which this call alone uses.
    static func make(_ name: String, _ arguments: [String: Value], store: PersistentStore, timeLimit: Double) throws -> ToolAnswer {
        guard let definition = MCPTools.definition(name) else { throw CommandError.usage("no tool '\(name)'") }
        var call = ToolCall(name: name, store: store, timeLimit: timeLimit)
        guard let key = definition.rowsKey else {
            let sink = OutputSink(collectingWithWidth: nil, byteLimit: MCPTools.byteCap)
            try call.run(try call.command(arguments), into: sink)
            let text = String(decoding: sink.collected, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !sink.overflowed, ReplyBytes.inReply(text) <= MCPTools.byteCap - MCPTools.envelope else {
                throw CommandError.failed("the answer is larger than \(MCPTools.byteCap >> 20) MiB; ask for less (one entity, a predicate)")
            }
            // What the store's opening found (a damaged -wal, a model from the schema) is
            // said on stderr once, which an assistant rarely sees: info says it again.
            let opened = name == "info" ? store.warnings.map { "\($0)" } : []
            return ToolAnswer(text: text, structured: nil, warnings: opened + call.warnings)
        }
        return try call.page(arguments, key: key)
    }
}

/// A tool call made into its session command, with the tool's typed arguments set on the
/// command's own properties, and run on the store.
struct ToolCall {
    let name: String
    let store: PersistentStore
    let timeLimit: Double
    var warnings: [String] = []

    init(name: String, store: PersistentStore, timeLimit: Double) {
        self.name = name
        self.store = store
        self.timeLimit = timeLimit
    }

    /// The session command for the tool's arguments (paging aside).
    mutating func command(_ a: [String: Value]) throws -> SessionCommand {
        func text(_ key: String) -> String? { a[key]?.stringValue }
        /// A list given as a JSON array or as comma-separated text.
        func items(_ key: String) -> [String] {
            guard let value = a[key] else { return [] }
            let items = value.arrayValue?.compactMap(\.stringValue)
                ?? (value.stringValue ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return items.filter { !$0.isEmpty }
        }
        let entity = text("entity") ?? ""
        switch name {
        case "info": return try InfoCommand.parse([])
        case "entities": return try EntitiesCommand.parse([])
        case "schema":
            var command = try SchemaCommand.parse([])
            command.entity = text("entity")
            return command
        case "count":
            var command = try CountCommand.parse(["-"])
            command.entity = entity
            command.predicate = try predicate(a)
            return command
        case "explain":
            var command = try ExplainCommand.parse(["-"])
            command.entity = entity
            command.predicate = try predicate(a)
            command.shape.sort = items("sort")
            return command
        case "fetch":
            var command = try FetchCommand.parse(["-"])
            command.entity = entity
            command.predicate = try predicate(a)
            command.shape.sort = items("sort")
            if !items("keys").isEmpty { command.shape.keyList.value = items("keys") }
            return command
        case "cloudkit":
            var command = try CloudKitCommand.parse([])
            command.view = text("view") ?? "status"
            command.target = text("object") ?? text("entity")
            command.predicate = try predicate(a)
            return command
        case "history":
            var command = try HistoryCommand.parse([])
            command.changes = a["changes"]?.boolValue == true
            command.after = text("after")
            command.since = text("since")
            command.until = text("until")
            command.author = text("author")
            command.contextName = text("contextName")
            command.entity = text("entity")
            command.object = text("object")
            if let type = text("type") {
                guard let parsed = HistoryChangeType(name: type) else { throw CommandError.usage("history: 'type' takes insert, update or delete") }
                command.type = parsed
            }
            return command
        case "doctor":
            var command = try DoctorCommand.parse([])
            command.model = text("model")
            command.full = a["full"]?.boolValue == true
            return command
        case "model":
            var command = try ModelCommand.parse([])
            let view = text("view") ?? "xml"
            // export writes files: not a tool of a read-only server.
            guard ["xml", "hashes", "diff", "classes"].contains(view) else {
                throw CommandError.usage("model: 'view' takes xml, hashes, diff or classes, not '\(view)'")
            }
            command.view = view
            command.target = view == "diff" ? text("other") : view == "classes" ? text("entity") : nil
            if view == "diff", command.target == nil { throw CommandError.usage("model: view diff needs 'other', the new model or another store") }
            return command
        case "sql":
            var command = try SQLCommand.parse([])
            command.query = [text("query") ?? ""]
            command.bind = (a["arguments"]?.arrayValue ?? []).map(Self.binding)
            command.timeout = timeLimit
            return command
        default:
            throw CommandError.usage("no tool '\(name)'")
        }
    }

    /// The predicate and its typed arguments, handed to the parser as the values they are.
    private mutating func predicate(_ a: [String: Value]) throws -> PredicateOptions {
        var options = try PredicateOptions.parse([])
        options.where = a["predicate"]?.stringValue
        guard let values = a["arguments"]?.arrayValue else { return options }
        guard let format = options.where else { throw CommandError.usage("\(name): 'arguments' fill the predicate's %@; give 'predicate'") }
        let specifiers = PredicateParser.specifierCount(format)
        if values.count > specifiers {
            let extra = values.count - specifiers
            warnings.append("\(extra) of 'arguments' \(extra == 1 ? "is" : "are") not used: the predicate has \(specifiers) format specifier\(specifiers == 1 ? "" : "s") outside quotes")
        }
        options.typedArguments.value = values.map { .value(Self.predicateValue($0)) }
        return options
    }

    /// A JSON value as the predicate's value: text, numbers, booleans and null as they are
    /// (a string fills %K as a key path).
    static func predicateValue(_ value: Value) -> PredicateValue {
        switch value {
        case .string(let s): return .string(s)
        case .int(let i): return .integer(Int64(i))
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        default: return .null
        }
    }

    /// A JSON value as `--bind` takes it for SQL's ?: text between quotes (only the outer
    /// pair is taken off, so nothing inside needs escaping), numbers as they are, a boolean
    /// as 1 or 0 (SQLite has no other), null as NULL.
    static func binding(_ value: Value) -> String {
        switch value {
        case .string(let s): return "\"" + s + "\""
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return b ? "1" : "0"
        default: return "NULL"
        }
    }

    /// Runs the command in JSON into `sink`, keeping the warnings it gives.
    mutating func run(_ command: SessionCommand, into sink: OutputSink) throws {
        var notes: [String] = []
        let session = Session(store: store, format: .json, output: sink, warn: { notes.append($0) }, runsOneCommand: true)
        defer { warnings += notes }
        do {
            try session.run(command)
        } catch is DoctorFoundErrors {
            // The report is the answer; the command line's exit status 1 has no place here.
        } catch is ModelsDiffer {
        }
        sink.flush()
    }

    /// One page of a tool with rows: `{"KEY": […], "truncated": …, "nextCursor": …}`, at most
    /// `MCPTools.cap` rows and `MCPTools.byteCap` bytes, from where the cursor says. The rows
    /// come from the command as values (`RowReceiver`), one more than the page holds to tell
    /// whether there are more.
    mutating func page(_ given: [String: Value], key: String) throws -> ToolAnswer {
        var arguments = given
        var offset = 0
        var remaining: Int?
        if let text = given["cursor"]?.stringValue {
            let cursor = try PageCursor(text, tool: name, arguments: given.filter { $0.key != "cursor" })
            (arguments, offset, remaining) = (cursor.arguments, cursor.offset, cursor.remaining)
        } else {
            let limit = given["limit"]?.intValue ?? 100
            remaining = limit == 0 ? nil : limit
        }
        let rows = min(remaining ?? MCPTools.cap, MCPTools.cap)
        var command = try self.command(arguments)
        switch command {
        case var fetch as FetchCommand:
            (fetch.shape.offset, fetch.shape.limit) = (offset, rows + 1)
            command = fetch
        case var sql as SQLCommand:
            (sql.offset, sql.limit) = (offset, rows + 1)
            command = sql
        case var history as HistoryCommand:
            (history.offset, history.limit) = (offset, rows + 1)
            command = history
        default: break
        }
        // Room for the rest of the reply, the cursor (it carries the arguments, in the text
        // and in the structured content) included.
        let cursorBytes = (try? JSONEncoder().encode(arguments).count) ?? 0
        let collector = PageCollector(rows: rows, bytes: MCPTools.byteCap - MCPTools.envelope - 2 * (cursorBytes * 4 / 3 + 64),
                                      nestsChanges: name == "history" && arguments["changes"]?.boolValue == true)
        let sink = OutputSink(collectingWithWidth: nil, byteLimit: 1 << 16)
        sink.rowReceiver = collector
        try run(command, into: sink)
        var more = collector.more
        var returned = collector.count
        if returned == 0 && more {
            // One row larger than a whole page: left out, said, and passed over.
            warnings.append("row \(offset + 1) is larger than \(MCPTools.byteCap >> 20) MiB of text and is left out (ask for fewer keys, or read it in pieces with sql and substr)")
            returned = 1
            more = true
        }
        var text = "{\"\(key)\": \(collector.json), \"truncated\": \(more)"
        var structured: [String: Value] = [key: .array(collector.values), "truncated": .bool(more)]
        if more, remaining.map({ $0 - returned > 0 }) ?? true {
            let next = PageCursor(tool: name, arguments: arguments, offset: offset + returned, remaining: remaining.map { $0 - returned })
            text += ", \"nextCursor\": \"\(next.encoded)\""
            structured["nextCursor"] = .string(next.encoded)
        }
        text += "}"
        return ToolAnswer(text: text, structured: .object(structured), warnings: warnings)
    }
}

/// The rows of one page, as the command hands them over, up to the page's row count and byte
/// budget, each kept twice: as the JSON text the command line prints, and as the MCP value of
/// the structured content. The budget counts both as the reply line carries them (the text
/// escaped inside a JSON string; the value, compact, at most the text's bytes). History's
/// changes come one record each, with their transaction nested in it, and are gathered back
/// into their transactions here, as the command line's JSON nests them.
final class PageCollector: RowReceiver {
    let rows: Int
    let budget: Int
    let nestsChanges: Bool
    private(set) var count = 0
    private(set) var more = false
    private var size = 0
    private var elements: [String] = []
    private var elementValues: [Value] = []
    /// For history with changes: each transaction's own columns and the changes of it the
    /// page holds.
    private var transactions: [(token: OutputValue, columns: [(String, OutputValue)], changes: [OutputValue])] = []

    /// A row's bytes in the reply: its text escaped, its separator, and its structured value.
    private static func cost(_ text: String) -> Int { 2 * text.utf8.count + ReplyBytes.escapedExtra(text) + 8 }

    init(rows: Int, bytes: Int, nestsChanges: Bool) {
        self.rows = rows
        budget = bytes
        self.nestsChanges = nestsChanges
    }

    func receive(_ record: OutputValue) -> Bool {
        guard count < rows else {
            more = true
            return false
        }
        // Decoded once here: the text and the structured value are both made from it.
        let record = record.archivesDecoded
        var text = record.jsonText
        var change: OutputValue?
        var header: [(String, OutputValue)] = []
        if nestsChanges, case .object(let pairs) = record,
           case .object(let transaction)? = pairs.first(where: { $0.0 == "transaction" })?.1,
           let changed = pairs.first(where: { $0.0 == "change" })?.1 {
            // History's change records: {"transaction": {…}, "change": {…}}, nested back into
            // their transactions as the command line's JSON nests them.
            header = transaction
            change = changed
            text = changed.jsonText
            if transactions.last?.token != header.first?.1 { size += Self.cost(OutputValue.object(header).jsonText) + 32 }
        }
        guard size + Self.cost(text) <= budget else {
            more = true
            return false
        }
        size += Self.cost(text)
        count += 1
        if let change {
            if transactions.last?.token != header.first?.1 {
                transactions.append((header.first?.1 ?? .null, header, []))
            }
            transactions[transactions.count - 1].changes.append(change)
        } else {
            elements.append(text)
            elementValues.append(Value(record))
        }
        return true
    }

    /// The page's rows as the structured content's array.
    var values: [Value] {
        nestsChanges
            ? transactions.map { Value(OutputValue.object($0.columns + [("changes", .array($0.changes))])) }
            : elementValues
    }

    var json: String {
        let items = nestsChanges
            ? transactions.map { OutputValue.object($0.columns + [("changes", .array($0.changes))]).jsonText }
            : elements
        return items.isEmpty ? "[]" : "[\n  " + items.joined(separator: ",\n  ") + "\n]"
    }
}

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
    /// The structured content, as the command's values (an MCP view is drawn from it).
    var answer: OutputValue
    var warnings: [String]
    /// What the text and the structured content take of the reply line, where `make` has
    /// measured it already.
    var measured: Int?

    /// The structured content as it goes out.
    var structured: Value { Value(answer) }

    /// What the text and the structured content take of the reply line.
    var replyBytes: Int { measured ?? Self.replyBytes(text, answer) }

    /// The reply line carries both: the text as a JSON string, the value as JSON.
    static func replyBytes(_ text: String, _ answer: OutputValue) -> Int {
        ReplyBytes.inReply(text) + ReplyBytes.inReply(answer.jsonText)
    }

    /// Runs the tool's session command on `store`, which this call alone uses.
    static func make(_ name: String, _ arguments: [String: Value], store: PersistentStore, timeLimit: Double) throws -> ToolAnswer {
        guard let definition = MCPTools.definition(name) else { throw CommandError.usage("no tool '\(name)'") }
        var call = ToolCall(name: name, store: store, timeLimit: timeLimit)
        guard let key = definition.rowsKey else {
            // The answer comes as values (a record, a report, rows); only what a command
            // prints as plain text (a model's XML) comes from the sink.
            let sink = OutputSink(collectingWithWidth: nil, byteLimit: MCPTools.byteCap)
            let answer = AnswerCollector(bytes: MCPTools.byteCap)
            sink.resultReceiver = answer
            try call.run(try call.command(arguments), into: sink)
            let printed = String(decoding: sink.collected, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            // Rows, none of them: the empty list the command line's JSON prints.
            let text = answer.text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? (printed.isEmpty ? "[]" : printed)
            // The same answer as structured content: an object as it is, a list under "rows",
            // text under "text" (`AnswerShape.structured`).
            let structured = AnswerShape.structured(answer.value ?? (printed.isEmpty ? .array([]) : .string(printed)))
            let size = replyBytes(text, structured)
            guard !sink.overflowed, !answer.overflowed, size <= MCPTools.byteCap - MCPTools.envelope else {
                throw CommandError.failed("the answer is larger than \(MCPTools.byteCap >> 20) MiB; ask for less (one entity, a predicate)")
            }
            // What the store's opening found (a damaged -wal, a model from the schema) is
            // said on stderr once, which an assistant rarely sees: info says it again.
            let opened = name == "info" ? store.warnings.map { "\($0)" } : []
            return ToolAnswer(text: text, answer: structured, warnings: opened + call.warnings, measured: size)
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

    /// The session command for the tool's arguments (paging aside), made by the command's
    /// own tool declaration.
    mutating func command(_ a: [String: Value]) throws -> SessionCommand {
        guard let definition = MCPTools.definition(name) else { throw CommandError.usage("no tool '\(name)'") }
        let arguments = ToolArguments(tool: name, values: a.mapValues(OutputValue.init), timeLimit: timeLimit)
        defer { warnings += arguments.warnings }
        return try definition.declaration.command(arguments)
    }

    /// Runs the command in JSON into `sink`, keeping the warnings it gives.
    mutating func run(_ command: SessionCommand, into sink: OutputSink) throws {
        var notes: [String] = []
        let session = Session(store: store, format: .json, output: sink, warn: { notes.append($0) }, runsOneCommand: true)
        defer { warnings += notes }
        do {
            try session.run(command)
        } catch is Finding {
            // The report is the answer; the command line's exit status 1 has no place here.
        }
        sink.flush()
    }

    /// One page of a tool with rows: `{"KEY": […], "truncated": …, "nextCursor": …}`, at most
    /// `MCPTools.cap` rows and `MCPTools.byteCap` bytes, from where the cursor says. The rows
    /// come from the command as values (`ResultReceiver`), one more than the page holds to tell
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
        if var paged = command as? any PagedCommand {
            paged.page(offset: offset, limit: rows + 1)
            command = paged
        }
        // Room for the rest of the reply, the cursor (a short handle, in the text and in the
        // structured content) included.
        let collector = PageCollector(rows: rows, bytes: MCPTools.byteCap - MCPTools.envelope,
                                      nestsChanges: name == "history" && arguments["changes"]?.boolValue == true)
        let sink = OutputSink(collectingWithWidth: nil, byteLimit: 1 << 16)
        sink.resultReceiver = collector
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
        var structured: [(String, OutputValue)] = [(key, .array(collector.values)), ("truncated", .bool(more))]
        if more, remaining.map({ $0 - returned > 0 }) ?? true {
            let next = PageCursor(tool: name, arguments: arguments, offset: offset + returned, remaining: remaining.map { $0 - returned }).handle
            text += ", \"nextCursor\": \"\(next)\""
            structured.append(("nextCursor", .string(next)))
        } else if more {
            // The caller's `limit` stopped it, not the page: there is no cursor to follow, and
            // the answer says so rather than leave `truncated` unexplained.
            text += ", \"limitReached\": true"
            structured.append(("limitReached", .bool(true)))
        }
        text += "}"
        return ToolAnswer(text: text, answer: .object(structured), warnings: warnings)
    }
}

/// The rows of one page, as the command hands them over, up to the page's row count and byte
/// budget, each kept twice: as the JSON text the command line prints, and as the MCP value of
/// the structured content. The budget counts both as the reply line carries them (the text
/// escaped inside a JSON string; the value, compact, at most the text's bytes). History's
/// changes come one record each, with their transaction nested in it, and are gathered back
/// into their transactions here, as the command line's JSON nests them.
final class PageCollector: ResultReceiver {
    let rows: Int
    let budget: Int
    let nestsChanges: Bool
    private(set) var count = 0
    private(set) var more = false
    private var size = 0
    private var elements: [String] = []
    private var elementValues: [OutputValue] = []
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

    /// A paged tool's command gives rows; a whole answer, were one to come, is a row too.
    func receive(answer: OutputValue) {
        _ = receive(answer)
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
            elementValues.append(record)
        }
        return true
    }

    /// The page's rows as the structured content's array.
    var values: [OutputValue] {
        nestsChanges ? transactions.map { OutputValue.object($0.columns + [("changes", .array($0.changes))]) } : elementValues
    }

    var json: String {
        let items = nestsChanges
            ? transactions.map { OutputValue.object($0.columns + [("changes", .array($0.changes))]).jsonText }
            : elements
        return items.isEmpty ? "[]" : "[\n  " + items.joined(separator: ",\n  ") + "\n]"
    }
}

/// The answer of a tool without pages: one whole value, or rows (made into the list the
/// command line's JSON prints), kept within the reply's byte cap.
final class AnswerCollector: ResultReceiver {
    let budget: Int
    private(set) var overflowed = false
    private var answer: OutputValue?
    private var rows: [OutputValue] = []
    private var size = 0

    init(bytes: Int) {
        budget = bytes
    }

    func receive(_ record: OutputValue) -> Bool {
        size += record.jsonText.utf8.count + 4
        guard size <= budget else {
            overflowed = true
            return false
        }
        rows.append(record)
        return true
    }

    func receive(answer: OutputValue) {
        self.answer = answer
    }

    /// The answer as a value: the whole answer, or the rows as a list; nil when the command
    /// gave none.
    var value: OutputValue? {
        if let answer { return answer }
        return rows.isEmpty ? nil : .array(rows)
    }

    /// The answer as the command line's JSON prints it; nil when the command gave none.
    var text: String? {
        if let answer { return answer.documentText }
        return rows.isEmpty ? nil : OutputValue.array(rows).documentText
    }
}

import Foundation
import Inspector
import MCP
import ManagedStore

/// One tool's answer: the JSON text the command prints (a page of it, for a tool with
/// rows), the same as structured content where the tool declares its shape, and the
/// warnings the command line would print on stderr.
struct ToolAnswer {
    var text: String
    var structured: Value?
    var warnings: [String]

    /// Runs the tool's session command on `store`, which this call alone uses.
    static func make(_ name: String, _ arguments: [String: Value], store: PersistentStore, timeLimit: Double) throws -> ToolAnswer {
        guard let definition = MCPTools.definition(name) else { throw CommandError.usage("no tool '\(name)'") }
        var call = ToolCommand(name: name, store: store, timeLimit: timeLimit)
        guard let key = definition.rowsKey else {
            let text = try call.run(try call.words(arguments), byteLimit: MCPTools.byteCap)
            guard !call.overflowed else {
                throw CommandError.failed("the answer is larger than \(MCPTools.byteCap >> 20) MiB of text; ask for less (one entity, a predicate)")
            }
            // What the store's opening found (a damaged -wal, a model from the schema) is
            // said on stderr once, which an assistant rarely sees: info says it again.
            let opened = name == "info" ? store.warnings.map { "\($0)" } : []
            return ToolAnswer(text: text.trimmingCharacters(in: .whitespacesAndNewlines), structured: nil, warnings: opened + call.warnings)
        }
        return try call.page(arguments, key: key)
    }
}

/// A tool call turned into its session command and run on the store.
struct ToolCommand {
    let name: String
    let store: PersistentStore
    let timeLimit: Double
    var warnings: [String] = []
    var overflowed = false

    init(name: String, store: PersistentStore, timeLimit: Double) {
        self.name = name
        self.store = store
        self.timeLimit = timeLimit
    }

    /// The command's words for the tool's arguments (paging aside).
    mutating func words(_ a: [String: Value]) throws -> [String] {
        func text(_ key: String) -> String? { a[key]?.stringValue }
        func option(_ key: String, _ flag: String) -> [String] { text(key).map { [flag, $0] } ?? [] }
        /// A list given as a JSON array or as comma-separated text.
        func items(_ key: String) -> [String] {
            guard let value = a[key] else { return [] }
            let items = value.arrayValue?.compactMap(\.stringValue)
                ?? (value.stringValue ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return items.filter { !$0.isEmpty }
        }
        let sorts = items("sort").flatMap { ["--sort", $0] }
        let keys = items("keys").isEmpty ? [] : ["--keys", items("keys").joined(separator: ",")]
        let entity = text("entity").map { [$0] } ?? []
        var predicate = option("predicate", "--where")
        if let values = a["arguments"]?.arrayValue, name != "sql" {
            guard let format = text("predicate") else { throw CommandError.usage("\(name): 'arguments' fill the predicate's %@; give 'predicate'") }
            let specifiers = PredicateParser.specifiers(format)
            if values.count > specifiers.count {
                let extra = values.count - specifiers.count
                warnings.append("\(extra) of 'arguments' \(extra == 1 ? "is" : "are") not used: the predicate has \(specifiers.count) format specifier\(specifiers.count == 1 ? "" : "s") outside quotes")
            }
            for (value, specifier) in zip(values, specifiers) {
                predicate += ["--arg", Self.literal(value, keyPath: specifier == "K")]
            }
        }
        switch name {
        case "info": return ["info"]
        case "entities": return ["entities"]
        case "schema": return ["schema"] + entity
        case "count": return ["count"] + entity + predicate
        case "explain": return ["explain"] + entity + predicate + sorts
        case "fetch": return ["fetch"] + entity + predicate + sorts + keys
        case "cloudkit": return ["cloudkit", text("view") ?? "entities"] + entity + predicate
        case "history":
            var words = ["history"]
            if a["changes"]?.boolValue == true { words.append("--changes") }
            for (key, flag) in [("after", "--after"), ("since", "--since"), ("until", "--until"), ("author", "--author"),
                                ("contextName", "--context-name"), ("entity", "--entity"), ("object", "--object"), ("type", "--type")] {
                words += option(key, flag)
            }
            return words
        case "sql":
            let bindings = (a["arguments"]?.arrayValue ?? []).flatMap { ["--bind", Self.literal($0, keyPath: false)] }
            return ["sql", text("query") ?? ""] + bindings + (timeLimit > 0 ? ["--timeout", String(timeLimit)] : [])
        default:
            throw CommandError.usage("no tool '\(name)'")
        }
    }

    /// A JSON value as the command line writes it: text quoted (a key path for %K as it is),
    /// numbers and booleans as they are, null as nil (NULL for SQL's ?).
    static func literal(_ value: Value, keyPath: Bool) -> String {
        switch value {
        case .string(let s):
            if keyPath { return s }
            return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return b ? "YES" : "NO"
        default: return "nil"
        }
    }

    /// Runs the command in JSON and returns what it printed, at most `byteLimit` bytes of it
    /// (`overflowed` says when more was dropped).
    mutating func run(_ words: [String], byteLimit: Int) throws -> String {
        let sink = OutputSink(collectingWithWidth: nil, byteLimit: byteLimit)
        var notes: [String] = []
        let session = Session(store: store, format: .json, output: sink, warn: { notes.append($0) }, runsOneCommand: true)
        defer { warnings += notes }
        try session.run(try CommandTable.parse(words + ["--format", "json"]))
        sink.flush()
        overflowed = sink.overflowed
        return String(decoding: sink.collected, as: UTF8.self)
    }

    /// One page of a tool with rows: `{"KEY": […], "truncated": …, "nextCursor": …}`, at most
    /// `MCPTools.cap` rows and `MCPTools.byteCap` bytes, from where the cursor says.
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
        // One row more than the page holds tells whether there are more.
        let words = try self.words(arguments) + ["--offset", String(offset), "--limit", String(rows + 1)]
        let printed = try run(words, byteLimit: MCPTools.byteCap + (64 << 10))
        var lines = printed.split(separator: "\n", omittingEmptySubsequences: true)
        // Past the byte limit the last line may be cut short: it is not a row.
        if overflowed, !lines.isEmpty { lines.removeLast() }
        let nested = name == "history" && arguments["changes"]?.boolValue == true
        var body = RowPage(rows: rows)
        if nested {
            for line in lines {
                if line.hasPrefix("    ") { body.add(change: line) } else if line.hasPrefix("  {") { body.add(transaction: line) }
            }
        } else {
            for line in lines where line.hasPrefix("  ") { body.add(row: line) }
        }
        var more = body.more || overflowed
        var returned = body.count
        if returned == 0 && more {
            // One row larger than a whole page: left out, said, and passed over.
            warnings.append("row \(offset + 1) is larger than \(MCPTools.byteCap >> 20) MiB of text and is left out (ask for fewer keys, or read it in pieces with sql and substr)")
            returned = 1
            more = true
        }
        var text = "{\"\(key)\": \(body.json), \"truncated\": \(more)"
        if more, remaining.map({ $0 - returned > 0 }) ?? true {
            let next = PageCursor(tool: name, arguments: arguments, offset: offset + returned, remaining: remaining.map { $0 - returned })
            text += ", \"nextCursor\": \"\(next.encoded)\""
        }
        text += "}"
        let structured = try? JSONDecoder().decode(Value.self, from: Data(text.utf8))
        return ToolAnswer(text: text, structured: structured, warnings: warnings)
    }
}

/// The rows of one page, kept as the command printed them (one JSON value a line), up to
/// the page's row count and byte cap.
struct RowPage {
    let rows: Int
    private(set) var count = 0
    private(set) var more = false
    private var size = 64
    private var elements: [String] = []
    /// For history with changes: each transaction's line (up to its "changes": [) and the
    /// changes of it the page holds.
    private var transactions: [(header: String, changes: [String])] = []

    init(rows: Int) { self.rows = rows }

    private static func element(_ line: Substring) -> String {
        var text = line.drop { $0 == " " }
        if text.hasSuffix(",") { text = text.dropLast() }
        return String(text)
    }

    /// Whether one more row of `bytes` fits; when not, the page is full.
    private mutating func fits(_ bytes: Int) -> Bool {
        guard !more, count < rows, size + bytes + 6 <= MCPTools.byteCap else {
            more = true
            return false
        }
        size += bytes + 6
        count += 1
        return true
    }

    mutating func add(row line: Substring) {
        let element = Self.element(line)
        if fits(element.utf8.count) { elements.append(element) }
    }

    mutating func add(transaction line: Substring) {
        guard !more else { return }
        let header = Self.element(line)
        size += header.utf8.count + 8
        transactions.append((header, []))
    }

    mutating func add(change line: Substring) {
        let change = Self.element(line)
        guard !transactions.isEmpty, fits(change.utf8.count) else { return }
        transactions[transactions.count - 1].changes.append(change)
    }

    var json: String {
        let items = transactions.isEmpty
            ? elements
            : transactions.filter { !$0.changes.isEmpty }.map { $0.header + "\n    " + $0.changes.joined(separator: ",\n    ") + "\n  ]}" }
        return items.isEmpty ? "[]" : "[\n  " + items.joined(separator: ",\n  ") + "\n]"
    }
}

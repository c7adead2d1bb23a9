import Foundation
import Inspector
import MCP
import ManagedStore

/// The tools, each a session command on the one read-only store. Calls are answered one at a
/// time: the store's connection is not shared between threads.
final class MCPTools: @unchecked Sendable {
    let store: PersistentStore
    private let lock = NSLock()
    /// Objects (or history rows) one call returns at most.
    static let cap = 1000
    /// Bytes of answer text one call returns at most: rows past it are left out and the
    /// answer says `truncated`, so an agent is never handed a 133 MB line (or a silent cut).
    static let byteCap = 4 << 20

    init(store: PersistentStore) { self.store = store }

    struct Definition {
        let name: String
        let description: String
        let properties: [(name: String, type: String, description: String)]
        let required: [String]
    }

    static let predicate = ("predicate", "string", "An NSPredicate format string, e.g. age > 30 AND name BEGINSWITH[c] \"d\".")
    static let definitions: [Definition] = [
        Definition(name: "entities", description: "The store's entities: name, parent, abstract, table and object count.",
                   properties: [], required: []),
        Definition(name: "schema", description: "An entity's attributes, relationships and columns (all entities without one).",
                   properties: [("entity", "string", "The entity.")], required: []),
        Definition(name: "fetch", description: "Objects of an entity as JSON, with 'truncated' when more matched than were returned.",
                   properties: [("entity", "string", "The entity (sub-entities included)."), predicate,
                                ("sort", "list", "Sort keys, comma-separated or an array, each KEY or KEY:desc."),
                                ("limit", "integer", "At most this many objects (default 100, at most 1000)."),
                                ("keys", "list", "Only these keys, comma-separated or an array.")],
                   required: ["entity"]),
        Definition(name: "count", description: "How many objects of an entity match a predicate.",
                   properties: [("entity", "string", "The entity."), predicate], required: ["entity"]),
        Definition(name: "explain", description: "The SQL a fetch runs, and its bound values.",
                   properties: [("entity", "string", "The entity."), predicate, ("sort", "list", "Sort keys, comma-separated or an array.")],
                   required: ["entity"]),
        Definition(name: "history", description: "Persistent history: transactions, or with changes=true one row per change.",
                   properties: [("changes", "boolean", "One row per change."), ("after", "string", "Only after this token."),
                                ("since", "string", "ISO 8601 date."), ("until", "string", "ISO 8601 date."),
                                ("author", "string", "Transaction author."), ("contextName", "string", "Context name."),
                                ("entity", "string", "Only changes of this entity."), ("object", "string", "Only changes of this object ID."),
                                ("type", "string", "insert, update or delete."),
                                ("limit", "integer", "At most this many rows (default 100, at most 1000).")],
                   required: []),
        Definition(name: "sql", description: "Read-only SQL against the store's tables (a statement that would write is refused).",
                   properties: [("query", "string", "One SQL statement."),
                                ("limit", "integer", "At most this many rows (default 100, at most 1000).")],
                   required: ["query"]),
        Definition(name: "cloudkit", description: "CloudKit mirroring state: entities, zones, objects or events.",
                   properties: [("view", "string", "entities (default), zones, objects or events."),
                                ("entity", "string", "For objects: the entity."), predicate],
                   required: []),
    ]

    /// Each tool's input schema, closed: an argument it does not declare is an error, not
    /// ignored (an agent that wrote `where` for `predicate` got every object as its answer).
    static var list: [Tool] {
        definitions.map { d in
            var properties: [String: Value] = [:]
            for p in d.properties {
                let type: Value = p.type == "list" ? .array(["string", "array"]) : .string(p.type)
                var schema: [String: Value] = ["type": type, "description": .string(p.description)]
                if p.type == "list" { schema["items"] = .object(["type": "string"]) }
                properties[p.name] = .object(schema)
            }
            return Tool(name: d.name, description: d.description,
                        inputSchema: .object(["type": "object", "properties": .object(properties),
                                              "required": .array(d.required.map { .string($0) }),
                                              "additionalProperties": false]),
                        annotations: .init(readOnlyHint: true, openWorldHint: false))
        }
    }

    /// The arguments against the tool's declared schema, as JSON-RPC and MCP ask: an unknown
    /// tool, an argument the tool does not declare, a value of another type or a missing
    /// required one is an invalid-params error (-32602) that names it; nothing is converted.
    static func validate(_ name: String, _ arguments: [String: Value]) throws {
        guard let definition = definitions.first(where: { $0.name == name }) else {
            throw MCPError.invalidParams("no tool '\(name)' (tools: \(definitions.map(\.name).joined(separator: ", ")))")
        }
        let declared = definition.properties.map(\.name)
        for (key, value) in arguments.sorted(by: { $0.key < $1.key }) {
            guard let property = definition.properties.first(where: { $0.name == key }) else {
                let accepted = declared.isEmpty ? "it takes none" : "it takes " + declared.joined(separator: ", ")
                throw MCPError.invalidParams("\(name) has no argument '\(key)' (\(accepted))")
            }
            let fits: Bool
            switch property.type {
            case "string": fits = value.stringValue != nil
            case "integer": fits = value.intValue != nil
            case "boolean": fits = value.boolValue != nil
            case "list": fits = value.stringValue != nil || value.arrayValue?.allSatisfy { $0.stringValue != nil } == true
            default: fits = true
            }
            guard fits else {
                let type = property.type == "list" ? "a string or an array of strings" : "a" + (property.type == "integer" ? "n " : " ") + property.type
                throw MCPError.invalidParams("\(name): '\(key)' takes \(type)")
            }
        }
        for key in definition.required where arguments[key] == nil {
            throw MCPError.invalidParams("\(name) needs '\(key)'")
        }
    }

    func call(_ name: String, _ arguments: [String: Value]) -> CallTool.Result {
        lock.lock()
        defer { lock.unlock() }
        do {
            return .init(content: [.text(text: try answer(name, arguments), annotations: nil, _meta: nil)], isError: false)
        } catch {
            return .init(content: [.text(text: ExitStatus.message(for: error), annotations: nil, _meta: nil)], isError: true)
        }
    }

    private func answer(_ name: String, _ a: [String: Value]) throws -> String {
        func text(_ key: String) throws -> String? {
            guard let value = a[key] else { return nil }
            if let s = value.stringValue { return s }
            if let i = value.intValue { return String(i) }
            throw CommandError.usage("\(key) takes a string")
        }
        func option(_ key: String, _ flag: String) throws -> [String] { try text(key).map { [flag, $0] } ?? [] }
        /// A list given as a JSON array or as comma-separated text.
        func items(_ key: String) -> [String] {
            guard let value = a[key] else { return [] }
            let items = value.arrayValue?.compactMap(\.stringValue)
                ?? (value.stringValue ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return items.filter { !$0.isEmpty }
        }
        let sorts = items("sort").flatMap { ["--sort", $0] }
        let keys = items("keys").isEmpty ? [] : ["--keys", items("keys").joined(separator: ",")]
        func required(_ key: String) throws -> String {
            guard let value = try text(key) else { throw CommandError.usage("\(name) needs '\(key)'") }
            return value
        }
        func limit() throws -> Int {
            guard let value = a["limit"] else { return 100 }
            guard let n = value.intValue ?? value.stringValue.flatMap({ Int($0) }), n > 0 else {
                throw CommandError.usage("limit takes a whole number above 0")
            }
            return min(n, MCPTools.cap)
        }
        let predicate = try option("predicate", "--where")
        switch name {
        case "entities": return try run(["entities"])
        case "schema": return try run(["schema"] + (try text("entity").map { [$0] } ?? []))
        case "count": return try run(["count", try required("entity")] + predicate)
        case "explain": return try run(["explain", try required("entity")] + predicate + sorts)
        case "fetch":
            let cap = try limit()
            let words = ["fetch", try required("entity")] + predicate + sorts + keys
            return capped(try run(words + ["--limit", String(cap + 1)]), cap: cap, key: "objects")
        case "history":
            let cap = try limit()
            var words = ["history"]
            if a["changes"]?.boolValue == true { words.append("--changes") }
            for (key, flag) in [("after", "--after"), ("since", "--since"), ("until", "--until"), ("author", "--author"),
                                ("contextName", "--context-name"), ("entity", "--entity"), ("object", "--object"), ("type", "--type")] {
                words += try option(key, flag)
            }
            if a["changes"]?.boolValue == true {
                // Changes nest in their transactions: count them in a run one longer than asked.
                let probe = try run(words + ["--limit", String(cap + 1)])
                let more = probe.components(separatedBy: "\"objectID\"").count - 1 > cap
                let rows = more ? try run(words + ["--limit", String(cap)]) : probe
                return "{\"transactions\": \(rows.trimmingCharacters(in: .whitespacesAndNewlines)), \"truncated\": \(more)}"
            }
            return capped(try run(words + ["--limit", String(cap + 1)]), cap: cap, key: "transactions")
        case "sql":
            let cap = try limit()
            return capped(try run(["sql", try required("query"), "--limit", String(cap + 1)]), cap: cap, key: "rows")
        case "cloudkit":
            return try run(["cloudkit", try text("view") ?? "entities"] + (try text("entity").map { [$0] } ?? []) + predicate)
        default:
            throw CommandError.usage("no tool '\(name)' (tools: \(MCPTools.definitions.map(\.name).joined(separator: ", ")))")
        }
    }

    /// Runs one session command in JSON on the read-only store and returns what it printed.
    private func run(_ words: [String]) throws -> String {
        let sink = OutputSink(collectingWithWidth: nil)
        var notes: [String] = []
        let session = Session(store: store, format: .json, output: sink, warn: { notes.append($0) }, runsOneCommand: true)
        try session.run(try CommandTable.parse(words + ["--format", "json"]))
        sink.flush()
        return String(decoding: sink.collected, as: UTF8.self)
    }

    /// A JSON array printed one element per line, cut to `cap` elements, as
    /// `{"KEY": […], "truncated": …}`.
    /// The command's JSON array, cut to `cap` elements and to `byteCap` bytes of answer.
    private func capped(_ array: String, cap: Int, key: String) -> String {
        let lines = array.split(separator: "\n").map(String.init)
        let elements = lines.filter { $0.hasPrefix("  ") }.map { $0.hasSuffix(",") ? String($0.dropLast()) : $0 }
        var kept: [String] = []
        var size = key.utf8.count + 40
        for element in elements.prefix(cap) {
            let trimmed = element.trimmingCharacters(in: .whitespaces)
            size += trimmed.utf8.count + 4
            guard size <= MCPTools.byteCap else { break }
            kept.append(trimmed)
        }
        let body = kept.isEmpty ? "[]" : "[\n  " + kept.joined(separator: ",\n  ") + "\n]"
        return "{\"\(key)\": \(body), \"truncated\": \(elements.count > kept.count)}"
    }
}

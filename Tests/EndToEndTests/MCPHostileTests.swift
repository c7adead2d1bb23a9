import Foundation
import XCTest

/// The MCP server against what a hostile prompt sends, over pipes after the handshake: every
/// statement of the `sql` hostile list and the client behaviours of the read-only issue, all
/// at once. No crash, no hang past the time limit, memory bounded, no file created or byte
/// changed, every request answered exactly once in whole lines under the byte cap, nothing
/// that persists; and a cancelled call stops while the others are answered.
final class MCPHostileTests: XCTestCase {
    /// A message as one line.
    static func line(_ message: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: message) + Data([10])
    }

    static func call(_ id: Int, _ tool: String, _ arguments: [String: Any]) throws -> Data {
        try line(["jsonrpc": "2.0", "id": id, "method": "tools/call", "params": ["name": tool, "arguments": arguments]])
    }

    func testEveryHostileStatementAndClientIsAnsweredOnceAndChangesNothing() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        try Data("not a store".utf8).write(to: folder.appendingPathComponent("other.sqlite"))
        // The server, like a session, opens a WAL store through SQLite, which creates the empty
        // -wal and the -shm when they are missing (man cdinspect, SAFETY): the listing starts after.
        XCTAssertEqual(try CLI.run([store, "-c", "count Person"]).stdout, "50\n")
        let before = try SQLCommandTests.listing(folder.path)

        let server = try MCPPipe([store, "--timeout", SanitizedBuild.limit(1)])
        try server.handshake()
        var batch = Data()
        var statements: [Int: String] = [:]
        var pings: [Int] = []
        var id = 100
        for sql in SQLCommandTests.hostileStatements(folder.path) {
            id += 1
            statements[id] = sql
            batch += try Self.call(id, "sql", ["query": sql])
            id += 1
            pings.append(id)
            batch += try Self.line(["jsonrpc": "2.0", "id": id, "method": "ping"])
        }
        // Client behaviours: each a JSON-RPC error (code) or a tool error (0).
        let clients: [(id: Int, message: Data, code: Int)] = [
            (1, Data(#"{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count", "arguments": "notanobject"}}"#.utf8) + Data([10]), -32602),
            (2, try Self.call(2, "drop", [:]), -32602),
            (3, try Self.call(3, "count", ["entity": "Person", "where": "age > 30", "predicate": "age > 30"]), -32602),
            (4, try Self.call(4, "fetch", ["entity": "Person", "limit": "2"]), -32602),
            (5, try Self.call(5, "fetch", ["cursor": "bm90IGEgY3Vyc29y"]), -32602),
            (6, try Self.call(6, "count", ["entity": "Person", "predicate": "age > %@"]), 0),
            (7, try Self.call(7, "sql", ["query": "SELECT ?", "arguments": [["nested"]]]), -32602),
            (8, try Self.line(["jsonrpc": "2.0", "id": 8, "method": "resources/read", "params": ["uri": "cdinspect://schema/Nobody"]]), -32002),
            (9, try Self.call(9, "fetch", ["entity": "Person", "limit": -1]), -32602),
        ]
        for client in clients { batch += client.message }
        batch += Data(#"{not json"#.utf8 + [10])
        batch += Data(#"{"jsonrpc": "2.0", "id": null, "method": "ping"}"#.utf8 + [10])
        batch += try Self.line(["jsonrpc": "2.0", "method": "notifications/cancelled", "params": ["requestId": 424242]])
        batch += Data(#"{"jsonrpc": "2.0", "id": 10, "method": "ping", "params": {"pad": ""#.utf8) + Data(repeating: 120, count: 5 << 20) + Data("\"}}\n".utf8)
        try server.write(batch)
        for waited in statements.keys.sorted() + pings + clients.map(\.id) {
            XCTAssertNotNil(try server.answer(waited, within: 90), "no answer to \(waited)")
        }

        for (key, sql) in statements {
            let (text, isError) = try server.toolText(key)
            XCTAssertTrue(isError, "\(sql) was not refused: \(text.prefix(200))")
            XCTAssertFalse(text.contains("0x") && sql.contains("fts3_tokenizer"), "fts3_tokenizer answered: \(text)")
        }
        for client in clients {
            let reply = try XCTUnwrap(server.answers(client.id).first)
            if client.code == 0 {
                let (text, isError) = try server.toolText(client.id)
                XCTAssertTrue(isError, text)
                XCTAssertTrue(text.contains("give it in 'arguments'") && !text.contains("--arg"), text)
            } else {
                XCTAssertEqual((reply["error"] as? [String: Any])?["code"] as? Int, client.code, "\(client.id): \(reply)")
            }
        }
        // Nothing a statement set outlived it: a read after them all answers as before.
        try server.write(try Self.call(20, "sql", ["query": "SELECT count(*) AS n, 'a' LIKE 'A' AS caseless FROM ZPERSON"])
                         + Self.call(21, "sql", ["query": "PRAGMA journal_mode"])
                         + Self.call(22, "count", ["entity": "Person"]))
        XCTAssertEqual(try server.toolText(20).text, "{\"rows\": [\n  {\"n\": 50, \"caseless\": 1}\n], \"truncated\": false}")
        XCTAssertTrue(try server.toolText(21).text.contains("\"journal_mode\": \"wal\""))
        XCTAssertEqual(try server.toolText(22).text, "{\"count\": 50}")

        let ended = server.finish()
        XCTAssertEqual(ended.status, 0)
        // The statement limit is 512 MB beyond what SQLite held (counted for the whole
        // process, so statements side by side share it); the rest is the server itself.
        XCTAssertLessThan(ended.peakMemory, 640 << 20, "peak memory")
        var seen: [Int: Int] = [:]
        var nullCodes: [Int] = []
        for line in server.output {
            XCTAssertLessThanOrEqual(line.text.utf8.count, (4 << 20) + 4096, "an answer past the byte cap")
            let message = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(line.text.utf8)) as? [String: Any],
                                        "not one whole message: \(line.text.prefix(200))")
            if let id = message["id"] as? Int { seen[id, default: 0] += 1 } else {
                nullCodes.append((message["error"] as? [String: Any])?["code"] as? Int ?? 0)
            }
        }
        XCTAssertEqual(seen.filter { $0.value != 1 }, [:], "answered more than once")
        XCTAssertEqual(Set(seen.keys), Set([0] + Array(statements.keys) + pings + clients.map(\.id) + [20, 21, 22]))
        XCTAssertEqual(nullCodes.sorted(), [-32700, -32600, -32600].sorted())
        XCTAssertEqual(try SQLCommandTests.listing(folder.path), before, "files created or changed")
    }

    func testACancelledCallStopsWhileOtherCallsAreAnswered() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        // No time limit: only the cancellation can stop the runaway statement.
        let server = try MCPPipe([store, "--timeout", "0"])
        try server.handshake()
        try server.write(try Self.call(1, "sql", ["query": "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"]))
        Thread.sleep(forTimeInterval: 0.3)
        try server.write(try Self.line(["jsonrpc": "2.0", "id": 2, "method": "ping"])
                         + Self.call(3, "count", ["entity": "Person", "predicate": "age > 30"])
                         + Self.call(4, "fetch", ["entity": "Person", "limit": 2, "keys": "name"])
                         + Self.call(5, "sql", ["query": "SELECT count(*) AS n FROM ZPERSON"]))
        for id in 2...5 { XCTAssertNotNil(try server.answer(id, within: 10), "call \(id) waited for the runaway one") }
        XCTAssertEqual(try server.toolText(5).text, "{\"rows\": [\n  {\"n\": 50}\n], \"truncated\": false}")
        XCTAssertTrue(server.answers(1).isEmpty)
        try server.send(["jsonrpc": "2.0", "method": "notifications/cancelled", "params": ["requestId": 1, "reason": "test"]])
        try server.write(try Self.line(["jsonrpc": "2.0", "id": 6, "method": "ping"]))
        XCTAssertNotNil(try server.answer(6, within: 10))
        let ended = server.finish()
        XCTAssertEqual(ended.status, 0)
        // A cancelled request is not answered, and not waited for at the end (a server that
        // waited for the runaway statement would be killed by finish's hang guard: 137).
        XCTAssertTrue(server.answers(1).isEmpty, "\(server.answers(1))")
    }
}

import Foundation
import XCTest

/// Answers with rows come in pages an agent can follow to the end: at most 1000 rows and
/// 4 MiB a page, `truncated` and a `nextCursor` while more remain, `limit: 0` as on the
/// command line (no limit), the same rows as structured content; and the rest of what the
/// server offers beside the tools: its model as resources, `info`, typed predicate arguments
/// and the warnings the command line would print.
final class MCPPagingTests: XCTestCase {
    /// Each page's parsed text and structured content, following nextCursor to the end.
    /// The longest reply line a page has had so far.
    var largest = 0

    func pages(_ server: MCPPipe, _ id: inout Int, _ tool: String, _ arguments: [String: Any]) throws -> [[String: Any]] {
        var result: [[String: Any]] = []
        var next: [String: Any]? = arguments
        while let asked = next {
            id += 1
            try server.write(try MCPHostileTests.call(id, tool, asked))
            let reply = try XCTUnwrap(try server.answer(id, within: 30), "no answer to \(tool) \(asked)")
            let answer = try XCTUnwrap(reply["result"] as? [String: Any], "\(reply)")
            XCTAssertNotEqual(answer["isError"] as? Bool, true, "\(answer)")
            let text = try XCTUnwrap((answer["content"] as? [[String: Any]])?.first?["text"] as? String)
            // The whole reply line, text and structured content together, within the page's limit.
            let line = try XCTUnwrap(server.bytesOfAnswer(id))
            XCTAssertLessThanOrEqual(line, (4 << 20) + (64 << 10), "\(tool): a reply line of \(line) bytes")
            largest = max(largest, line)
            let page = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], String(text.prefix(200)))
            XCTAssertEqual(answer["structuredContent"] as? NSDictionary, page as NSDictionary, "structured content differs from the text")
            result.append(page)
            next = (page["nextCursor"] as? String).map { ["cursor": $0] }
        }
        return result
    }

    func testPagesFollowToTheEndAndTheModelIsOffered() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 2500).path
        let server = try MCPPipe([store])
        try server.handshake()
        var id = 0

        // limit 0: every object, 1000 a page.
        let all = try pages(server, &id, "fetch", ["entity": "Person", "limit": 0, "keys": ["name"]])
        XCTAssertEqual(all.map { ($0["objects"] as? [Any])?.count ?? -1 }, [1000, 1000, 500])
        XCTAssertEqual(all.map { $0["truncated"] as? Bool }, [true, true, false])
        let ids = all.flatMap { ($0["objects"] as? [[String: Any]] ?? []).compactMap { $0["objectID"] as? String } }
        XCTAssertEqual(Set(ids).count, 2500)
        // A limit is kept across pages: the last page says more matched, and ends.
        let limited = try pages(server, &id, "fetch", ["entity": "Person", "limit": 1500, "sort": "age"])
        XCTAssertEqual(limited.map { ($0["objects"] as? [Any])?.count ?? -1 }, [1000, 500])
        XCTAssertEqual(limited.last?["truncated"] as? Bool, true)
        XCTAssertNil(limited.last?["nextCursor"])
        XCTAssertEqual(limited.last?["limitReached"] as? Bool, true, "the limit, not the page, ended it: said so")
        XCTAssertNil(limited.first?["limitReached"], "a page with a cursor needs no such word")

        // Pages end at 4 MiB on the wire: 2500 rows of 20 KB of text, each carried twice (text
        // and structured content), take more than twenty, and each but the last fills most of it.
        largest = 0
        let big = try pages(server, &id, "sql", ["query": "SELECT Z_PK, hex(zeroblob(10000)) AS blob FROM ZPERSON ORDER BY Z_PK", "limit": 0])
        XCTAssertGreaterThan(big.count, 20)
        XCTAssertGreaterThan(largest, 3 << 20, "pages are cut far below their limit")
        print("sql over 2,500 rows of 20 KB: \(big.count) pages, the longest reply line \(largest) bytes")
        let keys = big.flatMap { ($0["rows"] as? [[String: Any]] ?? []).compactMap { $0["Z_PK"] as? Int } }
        XCTAssertEqual(keys, Array(1...2500))

        // A cursor goes with its own call only.
        let first = try XCTUnwrap(all.first?["nextCursor"] as? String)
        for (arguments, tool, message) in [(["cursor": first, "entity": "Tag"], "fetch", "other arguments"),
                                           (["cursor": first, "query": "SELECT 1"], "sql", "continues a fetch call")] as [([String: Any], String, String)] {
            id += 1
            try server.write(try MCPHostileTests.call(id, tool, arguments))
            let error = try XCTUnwrap(try server.answer(id, within: 10)?["error"] as? [String: Any])
            XCTAssertEqual(error["code"] as? Int, -32602)
            XCTAssertTrue((error["message"] as? String)?.contains(message) == true, "\(error)")
        }

        // Typed predicate arguments: text for %@, a key path for %K.
        id += 1
        try server.write(try MCPHostileTests.call(id, "count", ["entity": "Person", "predicate": "%K > %@ AND name BEGINSWITH %@",
                                                                "arguments": ["age", 30, "dave1"]]))
        let typed = try server.toolText(id)
        let expected = try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZAGE > 30 AND ZNAME LIKE 'dave1%'")
        XCTAssertEqual(typed.text, "{\"count\": \(expected)}")
        // Text with quotes and backslashes, null and booleans reach SQL's ? and %@ as they are.
        id += 1
        try server.write(try MCPHostileTests.call(id, "sql", ["query": "SELECT ? AS t, ? IS NULL AS n, ? AS b, ? AS r",
                                                              "arguments": ["a \"quoted\" \\ back'slash", NSNull(), true, 2.5]]))
        XCTAssertEqual(try server.toolText(id).text,
                       #"{"rows": [\#n  {"t": "a \"quoted\" \\ back'slash", "n": 1, "b": 1, "r": 2.5}\#n], "truncated": false}"#)
        id += 1
        try server.write(try MCPHostileTests.call(id, "count", ["entity": "Person", "predicate": "name == %@ OR name == %@",
                                                                "arguments": ["dave\"1", "dave2"]]))
        XCTAssertEqual(try server.toolText(id).text, "{\"count\": 1}")
        // A warning the command line prints on stderr comes after the answer.
        id += 1
        try server.write(try MCPHostileTests.call(id, "count", ["entity": "Person", "predicate": "age > %@", "arguments": [30, 40]]))
        let warned = try XCTUnwrap(try server.answer(id, within: 10)?["result"] as? [String: Any])
        let texts = (warned["content"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        XCTAssertEqual(texts.count, 2, "\(texts)")
        XCTAssertEqual(texts.last, "warning: 1 of 'arguments' is not used: the predicate has 1 format specifier outside quotes")

        // Every tool declares the shape of its structured answer.
        id += 1
        try server.request(id, "tools/list")
        let tools = try XCTUnwrap((try server.answer(id, within: 10)?["result"] as? [String: Any])?["tools"] as? [[String: Any]])
        let declaring = tools.filter { $0["outputSchema"] != nil }.compactMap { $0["name"] as? String }
        XCTAssertEqual(Set(declaring), Set(tools.compactMap { $0["name"] as? String }))
        XCTAssertEqual(declaring.count, 16)

        // The model as resources: the whole schema, and one per entity (the views are offered
        // only to a client that declared it shows them, as AppViewTests' does; this one did not).
        id += 1
        try server.request(id, "resources/list")
        let resources = try XCTUnwrap((try server.answer(id, within: 10)?["result"] as? [String: Any])?["resources"] as? [[String: Any]])
        XCTAssertEqual(resources.compactMap { $0["uri"] as? String },
                       ["cdinspect://schema", "cdinspect://schema/Car", "cdinspect://schema/Person", "cdinspect://schema/SportsCar", "cdinspect://schema/Tag"])
        id += 1
        try server.request(id, "resources/read", ["uri": "cdinspect://schema/Person"])
        let contents = try XCTUnwrap((try server.answer(id, within: 10)?["result"] as? [String: Any])?["contents"] as? [[String: Any]])
        let schema = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((contents.first?["text"] as? String ?? "").utf8)) as? [String: Any])
        XCTAssertEqual(schema["table"] as? String, "ZPERSON")

        id += 1
        try server.write(try MCPHostileTests.call(id, "info", [:]))
        let info = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try server.toolText(id).text.utf8)) as? [String: Any])
        XCTAssertEqual(info["path"] as? String, store)
        XCTAssertEqual(info["journalMode"] as? String, "wal")
        XCTAssertEqual(server.finish().status, 0)
    }

    /// A call whose arguments are megabytes (a 4 MB query, nearly the longest line the server
    /// reads) gets pages whose cursor is a short handle: every reply line stays within the
    /// cap, the handle leads to the next page, and an answer that is complete has no cursor.
    func testACursorIsAShortHandleWhateverTheArguments() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        let server = try MCPPipe([store])
        try server.handshake()
        var id = 0
        let comment = String(repeating: "x", count: (4 << 20) - 1024)
        let query = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 2500) SELECT i FROM r /* \(comment) */"
        largest = 0
        let paged = try pages(server, &id, "sql", ["query": query, "limit": 0])
        XCTAssertEqual(paged.map { ($0["rows"] as? [Any])?.count ?? -1 }, [1000, 1000, 500])
        XCTAssertEqual(paged.flatMap { ($0["rows"] as? [[String: Any]] ?? []).compactMap { $0["i"] as? Int } }, Array(1...2500))
        XCTAssertLessThan(largest, 1 << 20, "a reply line carried the query")
        let cursors = paged.compactMap { $0["nextCursor"] as? String }
        XCTAssertEqual(cursors.count, 2)
        XCTAssertTrue(cursors.allSatisfy { $0.utf8.count <= 1024 }, "\(cursors.map(\.count))")
        // One row, complete: no cursor in the text or in the structured content.
        id += 1
        try server.write(try MCPHostileTests.call(id, "fetch", ["entity": "Person", "limit": 1, "keys": ["name"], "predicate": "name == 'dave7'"]))
        let answer = try XCTUnwrap(try server.answer(id, within: 30)?["result"] as? [String: Any])
        XCTAssertNil((answer["structuredContent"] as? [String: Any])?["nextCursor"], "\(answer)")
        XCTAssertFalse(try server.toolText(id).text.contains("nextCursor"))
        // A handle the server did not give is refused, as before.
        id += 1
        try server.write(try MCPHostileTests.call(id, "sql", ["cursor": String(repeating: "0", count: 32)]))
        let refused = try XCTUnwrap(try server.answer(id, within: 30))
        XCTAssertEqual((refused["error"] as? [String: Any])?["code"] as? Int, -32602, "\(refused)")
        XCTAssertEqual(server.finish().status, 0)
    }
}

import Foundation
import XCTest

/// The MCP server against a client that sends everything at once and then closes its side:
/// malformed and oversized lines, a null id, arguments that are not an object, large answers
/// among small ones. Every line out is one whole JSON message, every request read is answered
/// exactly once with its id (before the process exits), and what is not a request the server
/// can read gets the JSON-RPC error the specification names, with a null id.
final class MCPProtocolTests: XCTestCase {
    func testEveryRequestIsAnsweredOnceInWholeLinesEvenAfterInputCloses() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        var lines: [String] = []
        func request(_ id: Int, _ method: String, _ params: [String: Any]) throws {
            let data = try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "method": method, "params": params])
            lines.append(String(decoding: data, as: UTF8.self))
        }
        try request(1, "initialize", ["protocolVersion": "2025-06-18", "capabilities": [String: Any](),
                                      "clientInfo": ["name": "tests", "version": "1"]])
        lines.append(#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#)
        lines.append(#"{not json"#)
        lines.append(#"{"jsonrpc": "2.0", "id": null, "method": "ping"}"#)
        lines.append(#"{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "count", "arguments": "notanobject"}}"#)
        // Over the 4 MiB a message may take: refused whole, never held.
        lines.append(#"{"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"pad": ""# + String(repeating: "x", count: 5 << 20) + #""}}"#)
        // Under it, and answered: a line is read in time linear in its length.
        lines.append(#"{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"pad": ""# + String(repeating: "y", count: 2 << 20) + #""}}"#)
        // Answers are capped in bytes as well as rows, the whole reply line counted (a row goes
        // out twice: in the text and in the structured content): one row alone past the cap
        // leaves none, and of rows of 3.2 MB on the wire one fits.
        try request(6, "tools/call", ["name": "sql", "arguments": ["query": "SELECT hex(randomblob(3000000)) AS blob FROM ZPERSON LIMIT 3"]])
        try request(7, "tools/call", ["name": "sql", "arguments": ["query": "SELECT hex(randomblob(800000)) AS blob FROM ZPERSON LIMIT 3"]])
        for i in 0..<5 {
            try request(10 + i, "tools/call", ["name": "sql", "arguments": ["query": "SELECT hex(randomblob(300000)) AS blob FROM ZPERSON LIMIT 3"]])
            for j in 0..<3 { try request(20 + i * 3 + j, "ping", [:]) }
        }
        let input = folder.appendingPathComponent("input.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        let output = folder.appendingPathComponent("output.jsonl").path

        let server = try ChildProcess([CLI.binary.path, "mcp", store], environment: ProcessInfo.processInfo.environment,
                                      files: [0: input.path, 1: output])
        let ended = server.wait()
        XCTAssertEqual(ended.status, 0)
        XCTAssertLessThan(ended.peakMemory, 512 << 20)

        var answers: [Int: Int] = [:]
        var nullErrors: [Int] = []
        var results: [Int: [String: Any]] = [:]
        var errors: [Int: Int] = [:]
        let text = try String(contentsOfFile: output, encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("\n"))
        for line in text.split(separator: "\n") {
            XCTAssertLessThanOrEqual(line.utf8.count, (4 << 20) + (64 << 10), "a reply line past the page's limit: \(line.prefix(200))")
            let message = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not one whole message: \(line.prefix(200))")
            if let id = message["id"] as? Int {
                answers[id, default: 0] += 1
                if let result = message["result"] as? [String: Any] { results[id] = result }
                if let error = message["error"] as? [String: Any] { errors[id] = error["code"] as? Int }
            } else {
                XCTAssertTrue(message["id"] is NSNull, "\(line.prefix(200))")
                nullErrors.append((message["error"] as? [String: Any])?["code"] as? Int ?? 0)
            }
        }
        let expected = [1, 3, 5, 6, 7] + Array(10..<15) + Array(20..<35)
        XCTAssertEqual(answers.keys.sorted(), expected)
        XCTAssertTrue(answers.values.allSatisfy { $0 == 1 }, "\(answers)")
        XCTAssertEqual(nullErrors.sorted(), [-32700, -32600, -32600].sorted())
        XCTAssertEqual(errors[3], -32602)
        XCTAssertNotNil(results[5])
        for (id, rows) in [(6, 0), (7, 1)] {
            let content = (results[id]?["content"] as? [[String: Any]])?.first?["text"] as? String ?? ""
            XCTAssertLessThanOrEqual(content.utf8.count, 4 << 20, "sql \(id)")
            let answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(content.utf8)) as? [String: Any], String(content.prefix(200)))
            XCTAssertEqual((answer["rows"] as? [Any])?.count, rows, "sql \(id)")
            XCTAssertEqual(answer["truncated"] as? Bool, true, "sql \(id)")
        }
        for id in 10..<15 {
            let content = (results[id]?["content"] as? [[String: Any]])?.first?["text"] as? String ?? ""
            XCTAssertGreaterThan(content.count, 1_800_000, "sql \(id): \(content.prefix(200))")
            XCTAssertEqual((results[id]?["structuredContent"] as? [String: Any])?["truncated"] as? Bool, false, "sql \(id)")
        }
    }
}

import Foundation
import XCTest

/// The MCP server as another language's official client library sees it (Python's `mcp`):
/// `Tests/Clients/official_client.py` drives it and prints what it saw. `.ci/run` installs
/// the library in a virtual environment and names its python in CDINSPECT_MCP_PYTHON.
final class OfficialMCPClientTests: XCTestCase {
    func testThePythonClientLibraryReadsEveryPageAndGetsErrorsForWrongArguments() throws {
        guard let python = ProcessInfo.processInfo.environment["CDINSPECT_MCP_PYTHON"], !python.isEmpty else {
            throw XCTSkip("the official MCP client library for Python is not set up: CDINSPECT_MCP_PYTHON names a python with the mcp package (.ci/run makes one)")
        }
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 2500, history: true).path
        let script = Fixtures.packageRoot.appendingPathComponent("Tests/Clients/official_client.py").path
        let run = try CLI.run([script, CLI.binary.path, store], executable: URL(fileURLWithPath: python))
        XCTAssertEqual(run.status, 0, run.stderr)
        let seen = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout + run.stderr)
        XCTAssertEqual(seen["server"] as? String, "cdinspect")
        XCTAssertEqual(seen["tools"] as? [String], ["cloudkit", "count", "diff", "doctor", "entities", "explain", "fetch", "generations", "history", "info", "migrate", "model", "recover", "schema", "snapshots", "sql"])
        XCTAssertEqual(seen["titled"] as? Bool, true)
        XCTAssertEqual(seen["withoutOutputSchema"] as? [String], [])
        XCTAssertEqual(seen["schemaFailures"] as? [String], [])
        XCTAssertEqual(seen["schemaChecked"] as? [String], ["count", "diff", "doctor", "entities", "explain", "fetch", "history", "info", "model", "schema", "snapshots", "sql"])
        let views = try XCTUnwrap(seen["views"] as? [String: [String: Any]])
        XCTAssertEqual(Set(views.keys), ["ui://cdinspect/grid", "ui://cdinspect/model", "ui://cdinspect/doctor", "ui://cdinspect/history"])
        for (uri, view) in views {
            XCTAssertEqual(view["listed"] as? String, "text/html;profile=mcp-app", uri)
            XCTAssertEqual(view["read"] as? String, "text/html;profile=mcp-app", uri)
            XCTAssertEqual(view["document"] as? Bool, true, uri)
        }
        XCTAssertEqual(seen["prompts"] as? [String], ["why-not-synced", "what-is-broken", "will-it-migrate"])
        XCTAssertEqual(seen["promptMentionsDoctor"] as? Bool, true)
        XCTAssertEqual(seen["count"] as? Int, Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZAGE > 30")))
        XCTAssertEqual(seen["countByCommandLineNames"] as? Int, seen["count"] as? Int, "where and arg, as on the command line")
        XCTAssertEqual((seen["where"] as? [String: Any])?["raised"] as? String,
                       "Invalid params: count has no argument 'wehre' (it takes entity, predicate, arguments, generation, where, arg)")
        XCTAssertEqual(seen["fetched"] as? Int, 2500)
        XCTAssertEqual(seen["pages"] as? Int, 3)
        XCTAssertEqual((seen["resources"] as? [String])?.first, "cdinspect://schema")
        XCTAssertEqual(seen["schemaTable"] as? String, "ZPERSON")
        XCTAssertEqual(seen["runaway"] as? String, "MCPError")
        XCTAssertEqual(seen["afterCancel"] as? Int, 2500)
    }
}

import Foundation
import XCTest

/// The README is what a newcomer tries first, so every command in it runs here as they would
/// type it: in a folder holding a copy of `Examples/`, with the built `cdinspect` on PATH, each
/// line of each `sh` block in order (a later line may use a file an earlier one made). The
/// install lines are run by `.ci/release` (`make install`, `make dist`; the formula is parsed
/// with `ruby -c`), and `swift test --parallel` is this suite; the test names them so that a new line cannot
/// slip through unrun.
final class ReadmeTests: XCTestCase {
    static let runElsewhere: [String: String] = [
        "swift test --parallel": "the suite itself",
        "brew tap OWNER/cdinspect https://github.com/OWNER/cdinspect && brew install cdinspect": ".ci/release: ruby -c Formula/cdinspect.rb",
        "make install": ".ci/release",
        "make dist": ".ci/release",
    ]

    var readme: String!

    override func setUpWithError() throws {
        readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The lines of the README's fenced blocks of `language`, comments after `#` kept (the shell
    /// drops them), blank lines left out.
    func blocks(_ language: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                current!.append(line)
            }
        }
        return blocks
    }

    /// A line without its trailing comment, for matching against `runElsewhere`.
    static func command(_ line: String) -> String {
        guard let hash = line.range(of: "  #") else { return line }
        return String(line[..<hash.lowerBound]).trimmingCharacters(in: .whitespaces)
    }

    func workspace() throws -> URL {
        let folder = try Fixtures.temporaryDirectory(self)
        try FileManager.default.copyItem(at: Fixtures.packageRoot.appendingPathComponent("Examples"),
                                         to: folder.appendingPathComponent("Examples"))
        return folder
    }

    func testIsShort() {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        XCTAssertLessThanOrEqual(lines, 150, "the README has \(lines) lines")
    }

    func testEveryCommandRunsAsWritten() throws {
        let folder = try workspace()
        let path = CLI.binary.deletingLastPathComponent().path + ":/usr/bin:/bin"
        var ran = 0, examples = 0
        var elsewhere: Set<String> = []
        for block in blocks("sh") {
            for line in block {
                var command = Self.command(line)
                if let reason = Self.runElsewhere[command] {
                    elsewhere.insert(command)
                    XCTAssertFalse(reason.isEmpty)
                    continue
                }
                if command.hasPrefix("swift run cdinspect ") { command = String(command.dropFirst("swift run ".count)) }
                let r = try CLI.run(["-c", "cd '\(folder.path)' && \(command)"], executable: URL(fileURLWithPath: "/bin/sh"),
                                    environment: ["PATH": path], timeout: 120)
                XCTAssertEqual(r.status, 0, "\(command)\n\(r.stderr)")
                XCTAssertEqual(r.stderr, "", command)
                if command.contains("cdinspect ") {
                    XCTAssertFalse(r.stdout.isEmpty, "\(command) printed nothing")
                    if command.contains("Examples/People.sqlite") || command.contains(" People.sqlite") { examples += 1 }
                }
                ran += 1
            }
        }
        XCTAssertEqual(elsewhere, Set(Self.runElsewhere.keys), "a line the test expected is gone from the README")
        XCTAssertGreaterThanOrEqual(examples, 10, "ten examples on the example store")
        print("README: ran \(ran) lines, \(examples) of them cdinspect on the example store; \(elsewhere.count) run by .ci/run or the suite")
        // The writes went to the copy.
        let changed = try CLI.run(["count", folder.appendingPathComponent("People.sqlite").path, "Person", "--where", "name == 'Ann'"])
        XCTAssertEqual(changed.stdout, "1\n", changed.stderr)
        XCTAssertEqual(try CLI.run(["count", folder.appendingPathComponent("Examples/People.sqlite").path, "Person",
                                    "--where", "name == 'Ann'"]).stdout, "0\n")
    }

    /// The assistant set-up: the `mcpServers` entry, its path pointed at the example store,
    /// starts a server that answers `initialize`.
    func testTheMCPSnippetStartsAServer() throws {
        let snippets = blocks("json")
        XCTAssertEqual(snippets.count, 1)
        let json = try XCTUnwrap(snippets.first).joined(separator: "\n")
        let config = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let servers = try XCTUnwrap(config["mcpServers"] as? [String: [String: Any]])
        let server = try XCTUnwrap(servers.values.first)
        XCTAssertEqual((server["command"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }, "cdinspect")
        var args = try XCTUnwrap(server["args"] as? [String])
        XCTAssertEqual(args.first, "mcp")
        let folder = try workspace()
        args[args.count - 1] = folder.appendingPathComponent("Examples/People.sqlite").path
        let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}"#
        let r = try CLI.run(args, stdin: initialize + "\n", timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains(#""serverInfo""#), r.stdout)
    }
}

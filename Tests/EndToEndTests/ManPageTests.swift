import Foundation
import XCTest

/// The man page and the built-in help describe the same commands: every command `help`
/// lists, and every option its help shows, appears in man/cdinspect.1, and so does every
/// option of the one-shot form. The man page also renders without groff warnings.
final class ManPageTests: XCTestCase {
    var manual: String!
    var store: String!

    override func setUpWithError() throws {
        let page = Fixtures.packageRoot.appendingPathComponent("man/cdinspect.1")
        manual = try String(contentsOf: page, encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\(em", with: "-")
        store = try Fixtures.exampleStore(in: try Fixtures.temporaryDirectory(self), people: 5).path
    }

    /// The names `help` lists, in its order.
    func sessionCommands() throws -> [String] {
        let help = try CLI.run([store, "-c", "help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        return help.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    static func options(in help: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "(?<![\\w-])--[a-z][a-z-]*")
        return Set(pattern.matches(in: help, range: NSRange(help.startIndex..., in: help)).compactMap {
            Range($0.range, in: help).map { String(help[$0]) }
        }).subtracting(["--help", "--version"])
    }

    /// Words set in bold by a `.B`, `.BR` or `.BI` line: how the page names a command.
    var entries: Set<String> {
        var words: Set<String> = []
        for line in manual.split(separator: "\n") where line.hasPrefix(".B ") || line.hasPrefix(".BR ") || line.hasPrefix(".BI ") {
            for word in line.split(separator: " ").dropFirst() {
                words.insert(word.trimmingCharacters(in: CharacterSet(charactersIn: "\",|")))
            }
        }
        return words
    }

    func testEveryCommandAndOptionInHelpIsInTheManPage() throws {
        let commands = try sessionCommands()
        XCTAssertTrue(commands.contains("fetch") && commands.contains("sqldebug") && commands.contains("read"), "\(commands)")
        for command in commands {
            XCTAssertTrue(entries.contains(command), "man page has no entry for '\(command)'")
            let help = try CLI.run([store, "-c", "help \(command)"])
            XCTAssertEqual(help.status, 0, help.stderr)
            for option in Self.options(in: help.stdout) {
                XCTAssertTrue(manual.contains(option), "man page does not mention \(option) of '\(command)'")
            }
        }
        for subcommand in ["info", "entities", "schema", "fetch", "count", "explain", "batch-update", "batch-delete", "profile"] {
            let help = try CLI.run([subcommand, "--help"])
            XCTAssertEqual(help.status, 0, help.stderr)
            for option in Self.options(in: help.stdout) {
                XCTAssertTrue(manual.contains(option), "man page does not mention \(option) of 'cdinspect \(subcommand)'")
            }
        }
        let top = Self.options(in: try CLI.run(["--help"]).stdout)
        let session = Self.options(in: try CLI.run(["session", "--help"]).stdout)
        for option in top.union(session) {
            XCTAssertTrue(manual.contains(option), "man page does not mention \(option)")
        }
    }

    func testSectionsTheIssueAsksFor() {
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "PREDICATES", "QUERY GENERATIONS",
                        "SQL DEBUG OUTPUT", "FILES", "ENVIRONMENT", "EXIT STATUS", "EXAMPLES", "MCP SERVER", "WEB VIEW", "SAFETY"] {
            XCTAssertTrue(manual.contains(".SH \"\(section)\"") || manual.contains(".SH \(section)\n"), "no \(section) section")
        }
    }

    func testRendersWithoutGroffWarnings() throws {
        let page = Fixtures.packageRoot.appendingPathComponent("man/cdinspect.1").path
        // macOS has shipped mandoc instead of groff since 13.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else {
            throw XCTSkip("/usr/bin/groff is not installed (Debian: groff-base)")
        }
        let result = try CLI.run(["-man", "-ww", "-z", page], executable: URL(fileURLWithPath: "/usr/bin/groff"))
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "")
    }
}

import Foundation
import XCTest

/// The front door: `cdinspect`, `cdinspect --help` and `cdinspect help` show every command,
/// grouped, each with its own declaration's abstract; `help COMMAND` is `COMMAND --help`.
final class OverviewTests: XCTestCase {
    static let commands = ["info", "entities", "schema", "fetch", "count", "explain", "generations", "sql", "batch-update", "batch-delete",
                           "history", "watch", "cloudkit", "doctor", "profile", "snapshot", "snapshots", "restore", "export", "recover", "import", "diff", "create", "pull", "model", "migrate", "stores", "mcp", "browse"]

    func testHelpListsEveryCommandInItsGroup() throws {
        let help = try CLI.run(["--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        for group in ["Read:", "Change:", "History and sync:", "Health:", "Before and after:", "Model:", "Find:", "Serve:"] {
            XCTAssertTrue(help.stdout.contains("\n\(group)\n"), "\(group) in \(help.stdout)")
        }
        let listed = help.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("  cdinspect") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        XCTAssertEqual(listed, Self.commands)
        // Each line is the command's own abstract.
        XCTAssertTrue(help.stdout.contains("  stores        Find Core Data stores:"), help.stdout)
        XCTAssertEqual(try CLI.run(["help"]).stdout, help.stdout)
        XCTAssertEqual(try CLI.run(["-h"]).stdout, help.stdout)
    }

    /// Without a store: the overview, one error line, and the usage status.
    func testNoArgumentsShowTheOverviewAsAUsageError() throws {
        let bare = try CLI.run([])
        XCTAssertEqual(bare.status, 64)
        XCTAssertEqual(bare.stdout, try CLI.run(["--help"]).stdout)
        XCTAssertEqual(bare.stderr, "cdinspect: error: no store given: cdinspect STORE, or cdinspect COMMAND STORE with a command above\n")
    }

    func testHelpOfACommandIsItsOwnHelp() throws {
        for command in ["fetch", "model", "doctor"] {
            let help = try CLI.run(["help", command])
            XCTAssertEqual(help.status, 0, help.stderr)
            XCTAssertEqual(help.stdout, try CLI.run([command, "--help"]).stdout, command)
        }
        let unknown = try CLI.run(["help", "fetchh"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(unknown.stderr, "cdinspect: error: no command 'fetchh' (did you mean 'fetch'?); 'cdinspect help' lists them\n")
    }

    func testVersionNamesSQLiteAndTheLineEditor() throws {
        let version = try CLI.run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("0.1.0 (SQLite 3."), version.stdout)
        XCTAssertTrue(version.stdout.contains(", line editor: "), version.stdout)
    }
}

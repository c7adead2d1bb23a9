import Foundation
import XCTest

/// Shell completion as the generated scripts use it: subcommands and options from the
/// script, entity names from the binary (`---completion`), read from the store on the line.
final class CompletionTests: ExampleStoreTestCase {
    func testScriptsNameEveryCommandAndTheBinaryCompletesEntities() throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try CLI.run(["--generate-completion-script", shell])
            XCTAssertEqual(r.status, 0, r.stderr)
            for word in ["history", "watch", "cloudkit", "sql", "stores", "mcp", "context-name", "snapshot", "restore", "export",
                         "import", "upsert", "diff", "create", "pull", "device", "managed-object"] {
                XCTAssertTrue(r.stdout.contains(word), "\(shell) completion lacks \(word)")
            }
        }
        // `cloudkit STORE <Tab>` offers its views.
        let bash = try CLI.run(["--generate-completion-script", "bash"])
        XCTAssertTrue(bash.stdout.contains("'status'$'\\n''why'$'\\n''check'$'\\n''events'"), "bash completion lacks cloudkit's views")
        // What bash's script runs for `cdinspect fetch STORE S<Tab>`.
        let r = try CLI.run(["---completion", "fetch", "--", "positional@1", "3", "1", "cdinspect", "fetch", store, "S"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "SportsCar\n")
    }
}

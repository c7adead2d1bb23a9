import Foundation
import XCTest

/// SIGINT (Ctrl-C from a shell) during a script's batch update and fetch, and during a
/// one-shot batch delete: the command stops, says so, exits 130, and the store is as it was.
/// The signal is sent once the debug log shows the long statement running, so the test
/// does not depend on timing.
final class InterruptTests: ExampleStoreTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Fixtures.addBulkPeople(to: store)
    }

    /// Starts cdinspect, waits for `running` on stderr, sends SIGINT; returns the exit
    /// status, stdout and stderr.
    func interrupt(_ arguments: [String], stdin: String, when running: String) throws -> (Int32?, String, String) {
        let process = try RunningChild([CLI.binary.path] + arguments)
        process.write(stdin)
        process.closeInput()
        process.errors.expect(running)
        process.kill(SIGINT)
        let status = process.exitStatus()
        return (status, process.output.text, process.errors.text)
    }

    var fingerprint: String {
        get throws { try SQLiteShell.read(store, "SELECT count(*), sum(ZAGE), sum(Z_OPT) FROM ZPERSON") }
    }

    func testScriptBatchUpdateIsRolledBack() throws {
        let before = try fingerprint
        let (status, stdout, stderr) = try interrupt([store, "--sql-debug", "1"],
                                                     stdin: "batch-update Person --set age=age+1 --result count\ncount Tag\n",
                                                     when: "CoreData: sql: UPDATE OR FAIL ZPERSON")
        XCTAssertEqual(status, 130, stderr)
        XCTAssertTrue(stderr.contains("cdinspect: error: line 1: interrupted: the command stopped, and any changes it was making were rolled back\n"), stderr)
        XCTAssertEqual(stdout, "", "the script stops at the interrupted command")
        XCTAssertEqual(try fingerprint, before)
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok")
    }

    /// A script run by `read` stops as a whole: nothing after the interrupted command runs.
    func testReadStopsAtTheInterruptedCommand() throws {
        let before = try fingerprint
        let script = folder.appendingPathComponent("slow.cdi").path
        try "count Car\nbatch-update Person --set age=age+1\ncount Tag\n".write(toFile: script, atomically: true, encoding: .utf8)
        let (status, stdout, stderr) = try interrupt([store, "--sql-debug", "1"], stdin: "read \(script)\ncount Tag\n",
                                                     when: "CoreData: sql: UPDATE OR FAIL ZPERSON")
        XCTAssertEqual(status, 130, stderr)
        XCTAssertEqual(stdout, "50\n", "only the count before the batch update ran")
        XCTAssertTrue(stderr.contains("cdinspect: error: line 1: interrupted"), stderr)
        XCTAssertEqual(try fingerprint, before)
    }

    func testScriptFetchStopsPartWay() throws {
        let (status, stdout, stderr) = try interrupt([store, "--sql-debug", "1", "--format", "csv"],
                                                     stdin: "fetch Person\n",
                                                     when: "CoreData: sql: SELECT 0, t0.Z_PK")
        XCTAssertEqual(status, 130, stderr)
        XCTAssertTrue(stderr.contains("line 1: interrupted"), stderr)
        let rows = stdout.split(separator: "\n").count
        XCTAssertLessThan(rows, 2_000_051, "the fetch was stopped before its end")
    }

    func testOneShotBatchDeleteIsRolledBack() throws {
        let before = try fingerprint
        let joins = try SQLiteShell.read(store, "SELECT count(*) FROM Z_3TAGS")
        // Stopped while it reads the rows to delete, inside its exclusive transaction.
        let (status, _, stderr) = try interrupt(["batch-delete", store, "Person", "--sql-debug", "1"], stdin: "",
                                                when: "CoreData: sql: SELECT t0.Z_PK")
        XCTAssertEqual(status, 130, stderr)
        XCTAssertTrue(stderr.contains("CoreData: sql: BEGIN EXCLUSIVE TRANSACTION\n"), stderr)
        XCTAssertTrue(stderr.contains("cdinspect: error: interrupted"), stderr)
        XCTAssertEqual(try fingerprint, before)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM Z_3TAGS"), joins)
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok")
    }
}

import Foundation
import XCTest

/// A batch update is one transaction: killing the process (`kill -9`) at any moment leaves
/// a sound store with either every row changed or none.
final class BatchKillTests: XCTestCase {
    func testKillingABatchUpdateLeavesAllOrNothing() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let people = 200_000
        let original = try Fixtures.exampleStore(in: folder, people: people).path
        var outcomes: [String: Int] = [:]
        for trial in 0..<6 {
            let store = folder.appendingPathComponent("trial\(trial).sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: store)
            let process = try ChildProcess([CLI.binary.path, "batch-update", store, "Person", "--set", "name=\"Killed\"", "--set", "age=age+1",
                                            "--result", "count"], environment: ProcessInfo.processInfo.environment, files: [:])
            // From before the store is open to well after the update has started.
            Thread.sleep(forTimeInterval: 0.05 + Double(trial) * 0.08)
            kill(process.pid, SIGKILL)
            _ = process.waitForEnding()

            XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok", "trial \(trial)")
            let changed = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZNAME = 'Killed'")) ?? -1
            let versions = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE Z_OPT = 2")) ?? -1
            XCTAssertTrue(changed == 0 || changed == people, "trial \(trial): \(changed) of \(people) rows changed")
            XCTAssertEqual(versions, changed, "trial \(trial): Z_OPT moves with the values")
            outcomes[changed == 0 ? "none" : "all", default: 0] += 1
        }
        print("kill -9 during batch-update of \(people) rows: \(outcomes)")
    }
}

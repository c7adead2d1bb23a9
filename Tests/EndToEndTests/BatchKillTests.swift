import Foundation
import XCTest

/// A batch update, a restore and an import are one transaction each: killing the process (`kill -9`)
/// at any moment leaves a sound store with either every row changed or none.
final class BatchKillTests: XCTestCase {
    static let people = 200_000
    /// The large store both tests start from, generated once.
    nonisolated(unsafe) private static var generated: URL?

    private func largeStore(in folder: URL) throws -> String {
        if Self.generated == nil {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-kill-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            Self.generated = try Fixtures.exampleStore(in: home, people: Self.people)
        }
        let copy = folder.appendingPathComponent("large.sqlite")
        try FileManager.default.copyItem(at: try XCTUnwrap(Self.generated), to: copy)
        return copy.path
    }

    /// Runs cdinspect with `arguments` and kills it (`kill -9`) `seconds` later, at a
    /// moment of its work the trial picks; what is measured is the store it leaves.
    private func kill(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment, after seconds: Double) throws {
        let process = try ChildProcess([CLI.binary.path] + arguments, environment: environment, files: [:])
        Thread.sleep(forTimeInterval: seconds)
        Foundation.kill(process.pid, SIGKILL)
        _ = process.waitForEnding()
    }

    override func setUpWithError() throws {
        try LongSuite.require("Killing 200,000-row transactions at timed moments")
    }

    override class func tearDown() {
        if let generated { try? FileManager.default.removeItem(at: generated.deletingLastPathComponent()) }
        super.tearDown()
    }

    func testKillingABatchUpdateLeavesAllOrNothing() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let people = Self.people
        let original = try largeStore(in: folder)
        var outcomes: [String: Int] = [:]
        for trial in 0..<6 {
            let store = folder.appendingPathComponent("trial\(trial).sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: store)
            // From before the store is open to well after the update has started.
            try kill(["batch-update", store, "Person", "--set", "name=\"Killed\"", "--set", "age=age+1", "--result", "count"],
                     after: 0.05 + Double(trial) * 0.08)

            XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok", "trial \(trial)")
            let changed = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZNAME = 'Killed'")) ?? -1
            let versions = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE Z_OPT = 2")) ?? -1
            XCTAssertTrue(changed == 0 || changed == people, "trial \(trial): \(changed) of \(people) rows changed")
            XCTAssertEqual(versions, changed, "trial \(trial): Z_OPT moves with the values")
            outcomes[changed == 0 ? "none" : "all", default: 0] += 1
        }
        print("kill -9 during batch-update of \(people) rows: \(outcomes)")
    }

    func testKillingARestoreLeavesTheStoreAsItWasOrRestored() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let people = Self.people
        let original = try largeStore(in: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        let snapshot = folder.appendingPathComponent("clean").path
        XCTAssertEqual(try CLI.run(["snapshot", original, "--to", snapshot], environment: environment).status, 0)
        XCTAssertEqual(try CLI.run(["batch-update", original, "Person", "--set", "name=\"Changed\""], environment: environment).status, 0)
        var outcomes: [String: Int] = [:]
        for trial in 0..<6 {
            let store = folder.appendingPathComponent("trial\(trial).sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: store)
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: original + suffix) {
                try FileManager.default.copyItem(atPath: original + suffix, toPath: store + suffix)
            }
            // From before the store is open to past the copy of what it replaces.
            try kill(["restore", store, snapshot], environment: environment, after: 0.05 + Double(trial) * 0.15)

            XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok", "trial \(trial)")
            let changed = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZNAME = 'Changed'")) ?? -1
            let rows = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON")) ?? -1
            XCTAssertEqual(rows, people, "trial \(trial)")
            XCTAssertTrue(changed == 0 || changed == people, "trial \(trial): \(changed) of \(people) rows as before the restore")
            outcomes[changed == 0 ? "restored" : "as before", default: 0] += 1
        }
        print("kill -9 during restore of \(people) rows: \(outcomes)")
    }

    func testKillingAnImportLeavesNoneOfItsObjects() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let people = Self.people
        let original = try largeStore(in: folder)
        // A CSV of as many people again, written once.
        let csv = folder.appendingPathComponent("people.csv")
        var text = "name,age,id,birthday\n"
        text.reserveCapacity(people * 64)
        for i in 0..<people {
            text += "imported\(i),\(i % 90),\(UUID().uuidString),2001-01-0\(1 + i % 9)T00:00:00Z\n"
        }
        try Data(text.utf8).write(to: csv)
        var outcomes: [String: Int] = [:]
        for trial in 0..<6 {
            let store = folder.appendingPathComponent("trial\(trial).sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: store)
            // From before the store is open to well into the rows.
            try kill(["import", store, csv.path, "--entity", "Person"], after: 0.05 + Double(trial) * 0.2)

            XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok", "trial \(trial)")
            let rows = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON")) ?? -1
            let counter = Int(try SQLiteShell.read(store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'")) ?? -1
            XCTAssertTrue(rows == people || rows == 2 * people, "trial \(trial): \(rows) rows")
            XCTAssertEqual(counter, rows, "trial \(trial): Z_MAX moves with the rows")
            outcomes[rows == people ? "none" : "all", default: 0] += 1
        }
        print("kill -9 during import of \(people) rows: \(outcomes)")
    }
}

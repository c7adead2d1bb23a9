import Foundation
import XCTest

/// A batch update and a restore are one transaction each: killing the process (`kill -9`)
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
            let process = try ChildProcess([CLI.binary.path, "restore", store, snapshot], environment: environment, files: [:])
            // From before the store is open to past the copy of what it replaces.
            Thread.sleep(forTimeInterval: 0.05 + Double(trial) * 0.15)
            kill(process.pid, SIGKILL)
            _ = process.waitForEnding()

            XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok", "trial \(trial)")
            let changed = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZNAME = 'Changed'")) ?? -1
            let rows = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON")) ?? -1
            XCTAssertEqual(rows, people, "trial \(trial)")
            XCTAssertTrue(changed == 0 || changed == people, "trial \(trial): \(changed) of \(people) rows as before the restore")
            outcomes[changed == 0 ? "restored" : "as before", default: 0] += 1
        }
        print("kill -9 during restore of \(people) rows: \(outcomes)")
    }
}

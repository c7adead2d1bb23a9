import Foundation
import XCTest

/// Says done only when it is: every writing command (import, restore, a session's save,
/// batch-update, batch-delete, snapshot, create, migrate --in-place), with one `fsync` or `fdatasync` failing
/// (`EIO`) or one `write` or `pwrite64` failing (`ENOSPC`) at each step in turn (`KillHarness.fail`), ends with the store as
/// before or after, no row naming a missing file, and either exit 0, where no sync or write a
/// saved row depends on failed, or one error line and a non-zero exit, after which the same
/// command without the fault succeeds.
///
/// A failed write to the `-shm` is none of the disk's (the WAL index is shared memory, never
/// synced, rebuilt from the `-wal`). A failed call on the store's main file is no failure of
/// the command: in a `-wal` store
/// that is the checkpoint after the commit, which the `-wal` already holds. A failed sync of
/// a file or folder that was synced successfully at another point of the run (SQLite's own
/// sync of the folder it made the `-wal` in, which it ignores, after cdinspect synced it) is
/// none either. Here a sample of each command's fault points runs; `Tests/kill-every-step.sh`
/// runs every one.
final class FailedSyncTests: XCTestCase {
    private func failEveryStep(_ scenario: KillScenario, from template: URL, sample: Int = 6, changesStore: Bool = true) throws {
        let (harness, runs, before, after, calls) = try CrashSafetyTests.cleanRun(scenario, from: template)
        if changesStore { XCTAssertFalse(after.holdsTheSame(as: before), "\(scenario.name): the clean run changed nothing") }
        var points = 0, failed = 0
        for (call, error) in [("fsync", "EIO"), ("fdatasync", "EIO"), ("pwrite64", "ENOSPC"), ("write", "ENOSPC")] {
            for n in KillHarness.points(calls[call] ?? 0, sample: sample) {
                points += 1
                let folder = try CrashSafetyTests.copy(template, to: runs.appendingPathComponent("\(call)-\(n)"))
                defer { try? FileManager.default.removeItem(at: folder) }
                let run = try harness.fail(scenario.arguments(folder), stdin: scenario.stdin, environment: CrashSafetyTests.environment(folder),
                                           call: call, at: n, error: error)
                let point = "\(scenario.name), \(call) #\(n) failing with \(error) (on \(run.failedOn ?? "nothing"))"
                let left = try StoreState.read(scenario.store(folder))
                XCTAssertEqual(left.quickCheck, "ok", point)
                XCTAssertEqual(left.dangling, [], "\(point): rows name missing files")
                XCTAssertTrue(left.holdsTheSame(as: before) || left.holdsTheSame(as: after), "\(point): the store is neither as before nor as after")
                if run.result.status == 0 {
                    // A write to a pipe (the output the test reads) is no file.
                    if let path = run.failedOn, path.hasPrefix("/"), !path.hasPrefix("/dev/") {
                        let harmless = path == scenario.store(folder) || path.hasSuffix("-shm") || run.succeededOn.contains(path)
                        XCTAssertTrue(harmless, "\(point): exit 0 after a failed \(call) on \(path): \(run.result.stderr)")
                    }
                    continue
                }
                failed += 1
                let errors = run.result.stderr.split(separator: "\n").filter { $0.hasPrefix("cdinspect: error:") }
                XCTAssertEqual(errors.count, 1, "\(point): one error line: \(run.result.stderr)")
                XCTAssertFalse(run.result.stderr.contains("Fatal error") || run.result.signaled, "\(point): \(run.result.stderr)")
                if left.holdsTheSame(as: before) {
                    let again = try CLI.run(scenario.arguments(folder), stdin: scenario.stdin, environment: CrashSafetyTests.environment(folder))
                    XCTAssertEqual(again.status, 0, "\(point), run again without the fault: \(again.stderr)")
                }
            }
        }
        print("fault points of \(scenario.name): \(points), \(failed) of them ending in an error")
        XCTAssertGreaterThan(points, 0)
    }

    /// The restore whose photo files (replaced and added) the issue found reported as restored
    /// when their sync failed.
    func testRestoreWithPhotosReplacedAndAddedReportsEveryFailedSync() throws {
        try failEveryStep(CrashSafetyTests.restore, from: try CrashSafetyTests.template(in: self) { try CrashSafetyTests.keepSnapshotThenChange(in: $0) })
    }

    func testImportReportsEveryFailedSync() throws {
        let template = try CrashSafetyTests.template(in: self) { folder in
            let people = (0..<3).map { CrashSafetyTests.person("imported\($0)", 100 + $0, age: 30 + $0, photo: $0) }
            try "[\(people.joined(separator: ", "))]".write(to: folder.appendingPathComponent("people.json"), atomically: true, encoding: .utf8)
        }
        try failEveryStep(KillScenario(name: "import", arguments: {
            ["import", CrashSafetyTests.store($0), $0.appendingPathComponent("people.json").path, "--entity", "Person"]
        }), from: template)
    }

    func testSessionSaveReportsEveryFailedSync() throws {
        try failEveryStep(CrashSafetyTests.sessionSave, from: try CrashSafetyTests.template(in: self))
    }

    func testBatchDeleteReportsEveryFailedSync() throws {
        try failEveryStep(CrashSafetyTests.batchDelete, from: try CrashSafetyTests.template(in: self))
    }

    /// A snapshot changes no store: every failed sync of its files must end in an error.
    func testSnapshotReportsEveryFailedSync() throws {
        try failEveryStep(KillScenario(name: "snapshot", arguments: {
            ["snapshot", CrashSafetyTests.store($0), "kept", "--to", $0.appendingPathComponent("kept").path]
        }), from: try CrashSafetyTests.template(in: self), changesStore: false)
    }

    func testMigrateInPlaceReportsEveryFailedSync() throws {
        let template = try CrashSafetyTests.template(in: self) { try CrashSafetyTests.writeMigrationModels(into: $0) }
        try failEveryStep(CrashSafetyTests.migrateInPlace, from: template)
    }

    /// A created store is whole under its name, or no store is there; every failed sync of it
    /// ends in an error, after which the same create succeeds.
    func testCreateReportsEveryFailedSync() throws {
        let harness = try KillHarness()
        let template = try CrashSafetyTests.template(in: self)
        let runs = template.deletingLastPathComponent()
        let model = Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path
        let arguments = { (folder: URL) in ["create", folder.appendingPathComponent("New.sqlite").path, "--model", model] }
        let clean = try CrashSafetyTests.copy(template, to: runs.appendingPathComponent("clean"))
        let (calls, result) = try harness.count(arguments(clean), stdin: nil)
        XCTAssertEqual(result.status, 0, result.stderr)
        var points = 0
        for (call, error) in [("fsync", "EIO"), ("fdatasync", "EIO"), ("pwrite64", "ENOSPC"), ("write", "ENOSPC")] {
            for n in KillHarness.points(calls[call] ?? 0, sample: 6) {
                points += 1
                let folder = try CrashSafetyTests.copy(template, to: runs.appendingPathComponent("\(call)-\(n)"))
                defer { try? FileManager.default.removeItem(at: folder) }
                let run = try harness.fail(arguments(folder), stdin: nil, call: call, at: n, error: error)
                let point = "create, \(call) #\(n) failing with \(error) (on \(run.failedOn ?? "nothing"))"
                let path = folder.appendingPathComponent("New.sqlite").path
                if run.result.status == 0 {
                    let state = try StoreState.read(path)
                    XCTAssertEqual(state.quickCheck, "ok", point)
                    if let failed = run.failedOn, failed.hasPrefix("/"), !failed.hasPrefix("/dev/"), !failed.hasSuffix("-shm") {
                        XCTAssertTrue(run.succeededOn.contains(failed), "\(point): exit 0 after a failed \(call) on \(failed)")
                    }
                    continue
                }
                let errors = run.result.stderr.split(separator: "\n").filter { $0.hasPrefix("cdinspect: error:") }
                XCTAssertEqual(errors.count, 1, "\(point): one error line: \(run.result.stderr)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(point): a store under the name after an error")
                let again = try CLI.run(arguments(folder))
                XCTAssertEqual(again.status, 0, "\(point), run again without the fault: \(again.stderr)")
            }
        }
        print("fault points of create: \(points)")
        XCTAssertGreaterThan(points, 0)
    }

    func testBatchUpdateReportsEveryFailedSync() throws {
        try failEveryStep(CrashSafetyTests.batchUpdate, from: try CrashSafetyTests.template(in: self))
    }
}

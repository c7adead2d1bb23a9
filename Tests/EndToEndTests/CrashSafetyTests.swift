import Foundation
import ManagedStore
import XCTest

/// Never lose a byte (docs/crash-safety.md): every command that writes, killed on entry to any
/// file-changing system call (`KillHarness`), leaves a store that opens, passes quick_check,
/// holds exactly the state before or after (external values compared by their bytes), and
/// names no missing file; what a kill leaves over (files no row names) is swept by the next
/// write. The example store has 200 KB photos, stored externally as Core Data stores them.
///
/// Here a sample of each command's kill points runs (about `sample` per command, first and
/// last always); `Tests/kill-every-step.sh` runs every one.
final class CrashSafetyTests: XCTestCase {
    static let sample = 14
    static let photo = 204_800

    /// `bytes` (200 KB unless told) of a pattern that differs with `seed`, in base64.
    static func photo(seed: Int, bytes: Int = photo) -> String {
        Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ $0 >> 9) }).base64EncodedString()
    }

    static func person(_ name: String, _ id: Int, age: Int, photo seed: Int?, photoBytes: Int = photo) -> String {
        let uuid = String(format: "3F2504E0-4F89-41D3-9A0C-%012d", id)
        return "{\"name\": \"\(name)\", \"id\": \"\(uuid)\", \"age\": \(age)"
            + (seed.map { ", \"photo\": \"\(photo(seed: $0, bytes: photoBytes))\"" } ?? "") + "}"
    }

    /// The folder every kill point starts from: the example store with 30 people, three of
    /// them with a 200 KB photo in a file (dave3, dave13, dave23: Person/p4, p14, p24).
    func template(_ extra: (URL) throws -> Void = { _ in }) throws -> URL {
        try Self.template(in: self, extra)
    }

    /// The same folder, in `test`'s temporary directory (for another test class's scenarios).
    static func template(in test: XCTestCase, _ extra: (URL) throws -> Void = { _ in }) throws -> URL {
        let folder = try Fixtures.temporaryDirectory(test).appendingPathComponent("template")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try Fixtures.exampleStore(in: folder, people: 30, photos: [Self.photo])
        try extra(folder)
        return folder
    }

    /// What every fault run of `scenario` is checked against, from one clean run on a copy of
    /// `template`: the store before and after it, and the calls it made, counted (where to
    /// kill or fail it). Shared by the kill suite and `FailedSyncTests`.
    static func cleanRun(_ scenario: KillScenario, from template: URL,
                         file: StaticString = #filePath, line: UInt = #line) throws -> (harness: KillHarness, runs: URL, before: StoreState,
                                                                                       after: StoreState, calls: [String: Int]) {
        let harness = try KillHarness()
        let runs = template.deletingLastPathComponent()
        let before = try StoreState.read(copy(template, to: runs.appendingPathComponent("before")).appendingPathComponent("People.sqlite").path)
        let clean = try copy(template, to: runs.appendingPathComponent("clean"))
        let (calls, result) = try harness.count(scenario.arguments(clean), stdin: scenario.stdin, environment: environment(clean))
        XCTAssertEqual(result.status, 0, "\(scenario.name), clean run: \(result.stderr)", file: file, line: line)
        return (harness, runs, before, try StoreState.read(scenario.store(clean)), calls)
    }

    static func environment(_ folder: URL) -> [String: String] {
        ["XDG_DATA_HOME": folder.appendingPathComponent("library").path, "HOME": folder.path]
    }

    /// Runs `scenario` clean once (its "after"), then killed at each sampled point, and checks
    /// each store left. Returns the outcomes, for the note: "before", "after", "not killed".
    @discardableResult
    private func killEveryStep(_ scenario: KillScenario, from template: URL) throws -> [String: Int] {
        let (harness, runs, before, after, calls) = try Self.cleanRun(scenario, from: template)
        XCTAssertEqual(after.dangling, [], "\(scenario.name), clean run")
        if scenario.changesStore {
            XCTAssertNotEqual(after.digest, before.digest, "\(scenario.name): the clean run changed nothing, so a kill test proves nothing")
        }

        var outcomes: [String: Int] = [:]
        var points = 0
        for call in calls.keys.sorted() {
            for n in KillHarness.points(calls[call] ?? 0, sample: max(2, Self.sample * (calls[call] ?? 0) / max(1, calls.values.reduce(0, +)))) {
                points += 1
                let folder = try Self.copy(template, to: runs.appendingPathComponent("\(call)-\(n)"))
                defer { try? FileManager.default.removeItem(at: folder) }
                let killed = try harness.kill(scenario.arguments(folder), stdin: scenario.stdin, environment: Self.environment(folder), call: call, at: n)
                let point = "\(scenario.name), killed on entry to \(call) #\(n)"
                if let problem = try scenario.check?(folder) { XCTFail("\(point): \(problem)") }
                guard scenario.changesStore else {
                    outcomes[killed ? "killed" : "not killed", default: 0] += 1
                    continue
                }
                let left: StoreState
                do { left = try StoreState.read(scenario.store(folder)) } catch {
                    XCTFail("\(point): the store does not open: \(error)")
                    continue
                }
                XCTAssertEqual(left.quickCheck, "ok", point)
                XCTAssertEqual(left.dangling, [], "\(point): rows name missing files")
                let outcome = left.holdsTheSame(as: before) ? "before" : left.holdsTheSame(as: after) ? "after" : "neither"
                XCTAssertNotEqual(outcome, "neither", "\(point): the store is neither as before nor as after")
                outcomes[killed ? outcome : "not killed", default: 0] += 1
                // What the kill left over goes with the next write (a save), and nothing else.
                if !left.unreferenced.isEmpty {
                    let next = try CLI.run([scenario.store(folder), "-c", "update Person/p1 age=77", "-c", "save"], environment: Self.environment(folder))
                    XCTAssertEqual(next.status, 0, "\(point), the next save: \(next.stderr)")
                    XCTAssertTrue(next.stderr.contains("no row names were removed"), "\(point): the next save says what it swept: \(next.stderr)")
                    let swept = try StoreState.read(scenario.store(folder))
                    XCTAssertEqual(swept.unreferenced, [], "\(point): the next save sweeps what the kill left")
                    XCTAssertEqual(swept.dangling, [], point)
                }
            }
        }
        let counted = calls.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("kill points of \(scenario.name): \(points) of \(calls.values.reduce(0, +)); outcomes \(outcomes.sorted { $0.key < $1.key }); calls \(counted)")
        XCTAssertGreaterThan(points, 0)
        if scenario.changesStore { XCTAssertGreaterThan(outcomes["before", default: 0] + outcomes["after", default: 0], 0) }
        return outcomes
    }

    static func copy(_ template: URL, to folder: URL) throws -> URL {
        try? FileManager.default.removeItem(at: folder)
        try copyFolder(template, to: folder)
        return folder
    }

    static func store(_ folder: URL) -> String { folder.appendingPathComponent("People.sqlite").path }

    // MARK: The writing commands

    func testImportKilledAtAnyStep() throws {
        let template = try template { folder in
            let people = (0..<4).map { Self.person("imported\($0)", 100 + $0, age: 30 + $0, photo: $0) }
            try "[\(people.joined(separator: ", "))]".write(to: folder.appendingPathComponent("people.json"), atomically: true, encoding: .utf8)
        }
        try killEveryStep(KillScenario(name: "import", arguments: {
            ["import", Self.store($0), $0.appendingPathComponent("people.json").path, "--entity", "Person"]
        }),
                          from: template)
    }

    func testUpsertKilledAtAnyStep() throws {
        // dave3's photo replaced (its old file goes), dave13's kept, a new person with one.
        let template = try template { folder in
            let people = [Self.person("dave3", 200, age: 41, photo: 7), Self.person("new", 201, age: 22, photo: 8)]
            try "[\(people.joined(separator: ", "))]".write(to: folder.appendingPathComponent("people.json"), atomically: true, encoding: .utf8)
        }
        try killEveryStep(KillScenario(name: "import --upsert", arguments: {
            ["import", Self.store($0), $0.appendingPathComponent("people.json").path, "--entity", "Person", "--upsert", "name"]
        }), from: template)
    }

    func testSessionSaveKilledAtAnyStep() throws {
        try killEveryStep(Self.sessionSave, from: try template())
    }

    func testBatchRequestsKilledAtAnyStep() throws {
        let template = try template()
        try killEveryStep(Self.batchUpdate, from: template)
        try killEveryStep(Self.batchDelete, from: template)
    }

    func testRestoreKilledAtAnyStep() throws {
        try killEveryStep(Self.restore, from: try template { try Self.keepSnapshotThenChange(in: $0) })
    }

    /// `migrate --in-place` to the example model with a new attribute (with a default) and a
    /// new entity: the store is as before or as migrated at every kill point, its photos in
    /// files throughout.
    func testMigrateInPlaceKilledAtAnyStep() throws {
        let template = try template { try Self.writeMigrationModels(into: $0) }
        try killEveryStep(Self.migrateInPlace, from: template)
        // Without the new entity it only adds: the store's pages copied and altered.
        try killEveryStep(KillScenario(name: "migrate --in-place, altering", arguments: {
            ["migrate", Self.store($0), "--model", $0.appendingPathComponent("Adds.xcdatamodel").path, "--in-place"]
        }), from: template)
    }

    // MARK: Scenarios this suite and FailedSyncTests both run

    /// An update that replaces a photo, one that removes one, an insert with one, a delete of
    /// a person with one: files written, replaced and removed in one save.
    static var sessionSave: KillScenario {
        let script = "update Person/p4 photo=\(photo(seed: 11))\nupdate Person/p14 photo=nil\n"
            + "insert Person name=new id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F photo=\(photo(seed: 12))\ndelete Person/p24\nsave\n"
        return KillScenario(name: "a session's save", arguments: { [store($0)] }, stdin: script)
    }

    static var batchUpdate: KillScenario {
        KillScenario(name: "batch-update", arguments: {
            ["batch-update", store($0), "Person", "--set", "age=age+1", "--where", "age < 50"]
        })
    }

    static var batchDelete: KillScenario {
        KillScenario(name: "batch-delete", arguments: {
            ["batch-delete", store($0), "Person", "--where", "name BEGINSWITH 'dave2'"]
        })
    }

    /// Restores the snapshot `keepSnapshotThenChange` kept.
    static var restore: KillScenario {
        KillScenario(name: "restore", arguments: {
            ["restore", store($0), $0.appendingPathComponent("kept").path]
        })
    }

    /// The snapshot `kept` holds the three photos; the store then replaces one, drops one, and
    /// gains a person with another: restoring it adds, keeps and removes files.
    static func keepSnapshotThenChange(in folder: URL) throws {
        let store = store(folder)
        let snapshot = try CLI.run(["snapshot", store, "kept", "--to", folder.appendingPathComponent("kept").path])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        let script = "update Person/p4 photo=\(photo(seed: 21))\ndelete Person/p14\n"
            + "insert Person name=new id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F photo=\(photo(seed: 22))\nsave\n"
        let changed = try CLI.run([store], stdin: script)
        XCTAssertEqual(changed.status, 0, changed.stderr)
    }

    /// To the model `writeMigrationModels` writes as `Next.xcdatamodel`.
    static var migrateInPlace: KillScenario {
        KillScenario(name: "migrate --in-place", arguments: {
            ["migrate", store($0), "--model", $0.appendingPathComponent("Next.xcdatamodel").path, "--in-place"]
        })
    }

    /// The example model with a new attribute (with a default) and a new entity
    /// (`Next.xcdatamodel`), and with the attribute only (`Adds.xcdatamodel`), in `folder`.
    static func writeMigrationModels(into folder: URL) throws {
        let model = folder.appendingPathComponent("Next.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let contents = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld/People.xcdatamodel/contents"),
                                  encoding: .utf8)
        let next = contents
            .replacingOccurrences(of: "<attribute name=\"score\"",
                                  with: "<attribute name=\"rank\" optional=\"YES\" attributeType=\"Integer 16\" defaultValueString=\"3\" usesScalarValueType=\"YES\"/>\n        <attribute name=\"score\"")
            .replacingOccurrences(of: "</model>", with: "<entity name=\"Garage\" representedClassName=\"Garage\"><attribute name=\"city\" optional=\"YES\" attributeType=\"String\"/></entity></model>")
        XCTAssertNotEqual(next, contents)
        try Data(next.utf8).write(to: model.appendingPathComponent("contents"))
        let adds = folder.appendingPathComponent("Adds.xcdatamodel")
        try FileManager.default.createDirectory(at: adds, withIntermediateDirectories: true)
        try Data(next.replacingOccurrences(of: "<entity name=\"Garage\" representedClassName=\"Garage\"><attribute name=\"city\" optional=\"YES\" attributeType=\"String\"/></entity>", with: "").utf8)
            .write(to: adds.appendingPathComponent("contents"))
    }

    func testSnapshotKilledAtAnyStepIsNeverListed() throws {
        let template = try template()
        let scenario = KillScenario(name: "snapshot", arguments: { ["snapshot", Self.store($0), "kept"] }, check: { folder in
            // Listed only whole: its copy sound, its photos all there.
            let listed = try CLI.run(["snapshots", Self.store(folder), "--format", "json"], environment: Self.environment(folder))
            guard listed.status == 0 else { return "snapshots failed: \(listed.stderr)" }
            let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
            guard let row = rows.first else { return nil }
            guard rows.count == 1, row["name"] as? String == "kept" else { return "listed: \(rows)" }
            let shelf = folder.appendingPathComponent("library/cdinspect/snapshots")
            let copies = FileManager.default.enumerator(atPath: shelf.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix("/kept/People.sqlite") } ?? []
            guard let copy = copies.first else { return "a listed snapshot without its store file" }
            let state = try StoreState.read(shelf.appendingPathComponent(copy).path)
            if state.quickCheck != "ok" || !state.dangling.isEmpty { return "a listed snapshot is not whole: \(state)" }
            // A later snapshot clears what a killed one left.
            return nil
        }, changesStore: false)
        try killEveryStep(scenario, from: template)
    }

    func testCreateKilledAtAnyStepLeavesNoStoreOrAWholeOne() throws {
        let template = try template()
        let model = Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path
        let expected = try CLI.run(["create", template.appendingPathComponent("Reference.sqlite").path, "--model", model])
        XCTAssertEqual(expected.status, 0, expected.stderr)
        let schema = try SQLiteShell.read(template.appendingPathComponent("Reference.sqlite").path,
                                          "SELECT type, name, sql FROM sqlite_master ORDER BY name")
        let scenario = KillScenario(name: "create", arguments: { ["create", $0.appendingPathComponent("New.sqlite").path, "--model", model] },
                                    store: { $0.appendingPathComponent("New.sqlite").path }, check: { folder in
            let path = folder.appendingPathComponent("New.sqlite").path
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            guard FileManager.default.fileExists(atPath: path) else {
                // No store; hidden remains, if any, are cleared by the next create.
                let again = try CLI.run(["create", path, "--model", model])
                if again.status != 0 { return "a create after the kill failed: \(again.stderr)" }
                let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".creating-") }
                return left.isEmpty ? nil : "the next create left \(left)"
            }
            let state = try StoreState.read(path)
            if state.quickCheck != "ok" { return "quick_check: \(state.quickCheck) (\(names))" }
            let found = try SQLiteShell.read(path, "SELECT type, name, sql FROM sqlite_master ORDER BY name")
            if found != schema { return "a store under the name without the whole schema" }
            let metadata = try SQLiteShell.read(path, "SELECT count(*) FROM Z_METADATA").trimmingCharacters(in: .whitespacesAndNewlines)
            return metadata == "1" ? nil : "a store under the name without Z_METADATA"
        }, changesStore: false)
        try killEveryStep(scenario, from: template)
    }
}

/// The order on disk, read from a clean run's system calls (`strace -y`, which names each
/// call's file): every new external file, and then its folder, is synced before the last
/// write of the commit to the `-wal`, so no committed row can name a file a power cut loses.
final class SyncOrderTests: XCTestCase {
    struct Call {
        let name: String
        let path: String
    }

    /// The calls of `arguments` that write or sync, with the file each one names.
    private func trace(_ arguments: [String], stdin: String? = nil) throws -> [Call] {
        let strace = try RequiredTools.require("strace", install: "apt-get install strace")
        let log = try Fixtures.temporaryDirectory(self).appendingPathComponent("trace")
        let result = try CLI.run(arguments, stdin: stdin,
                                 prefix: [strace.path, "-f", "-qq", "-y", "-o", log.path, "-e", "trace=write,pwrite64,fsync,fdatasync"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            // "PID name(FD</path>, …"
            guard let open = line.firstIndex(of: "("), let start = line.firstIndex(of: "<"), let end = line[start...].firstIndex(of: ">") else { return nil }
            let name = line[..<open].split(separator: " ").last.map(String.init) ?? ""
            return Call(name: name, path: String(line[line.index(after: start)..<end]))
        }
    }

    private func assertSyncedBeforeTheCommit(_ calls: [Call], files expected: Int, file: StaticString = #filePath, line: UInt = #line) {
        let isExternal = { (path: String) in path.contains("/_EXTERNAL_DATA/") }
        let created = Set(calls.filter { $0.name == "write" && isExternal($0.path) }.map(\.path))
        XCTAssertEqual(created.count, expected, "new external files", file: file, line: line)
        guard let lastWAL = calls.lastIndex(where: { $0.name == "pwrite64" && $0.path.hasSuffix("-wal") }) else {
            return XCTFail("no write to the -wal", file: file, line: line)
        }
        for path in created {
            let written = calls.lastIndex { $0.name == "write" && $0.path == path } ?? 0
            let synced = calls.firstIndex { ($0.name == "fsync" || $0.name == "fdatasync") && $0.path == path }
            XCTAssertNotNil(synced, "\(path) is never synced", file: file, line: line)
            guard let synced else { continue }
            XCTAssertGreaterThan(synced, written, file: file, line: line)
            XCTAssertLessThan(synced, lastWAL, "\(path) synced after the commit's last -wal write", file: file, line: line)
            let folder = (path as NSString).deletingLastPathComponent
            let folderSynced = calls[synced...].firstIndex { ($0.name == "fsync" || $0.name == "fdatasync") && $0.path == folder }
            XCTAssertNotNil(folderSynced, "\(folder) is not synced after \(path)", file: file, line: line)
            if let folderSynced { XCTAssertLessThan(folderSynced, lastWAL, "the folder synced after the commit", file: file, line: line) }
        }
    }

    /// The calls of an import of `count` people with a 200 KB photo each into the example store.
    private func tracedImport(of count: Int) throws -> [Call] {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 10).path
        let people = (0..<count).map { CrashSafetyTests.person("imported\($0)", 100 + $0, age: 30, photo: $0) }
        let file = folder.appendingPathComponent("people.json")
        try "[\(people.joined(separator: ", "))]".write(to: file, atomically: true, encoding: .utf8)
        return try trace(["import", store, file.path, "--entity", "Person"])
    }

    func testAnImportSyncsEveryFileAndItsFolderBeforeItCommits() throws {
        assertSyncedBeforeTheCommit(try tracedImport(of: 4), files: 4)
    }

    /// From `Disk.concurrentFrom` files on, they are synced eight at a time: still every one,
    /// and the folder, before the commit.
    func testAnImportOfManyFilesSyncsThemTogetherBeforeItCommits() throws {
        assertSyncedBeforeTheCommit(try tracedImport(of: 20), files: 20)
    }

    func testASaveSyncsEveryFileAndItsFolderBeforeItCommits() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 30, photos: [CrashSafetyTests.photo]).path
        let script = "update Person/p4 photo=\(CrashSafetyTests.photo(seed: 31))\n"
            + "insert Person name=new id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F photo=\(CrashSafetyTests.photo(seed: 32))\nsave\n"
        assertSyncedBeforeTheCommit(try trace([store], stdin: script), files: 2)
    }
}

/// What a crash leaves beside a store, found by doctor and put right by the next write:
/// Core Data's own window (a row naming `<UUID>` while the file is still `<UUID>.interim`,
/// an app killed between its commit and its rename) is rolled forward; files no row names,
/// and `.interim` files of saves that never committed, are removed, with their size said.
final class CrashRepairTests: XCTestCase {
    func testTheNextSaveRollsForwardAndSweepsWhatACrashLeft() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 30, photos: [CrashSafetyTests.photo]).path
        let external = folder.appendingPathComponent(".People_SUPPORT/_EXTERNAL_DATA")
        let named = try FileManager.default.contentsOfDirectory(atPath: external.path).sorted()
        XCTAssertEqual(named.count, 3)
        // The app was killed after committing the row of named[0], before renaming its file.
        try FileManager.default.moveItem(at: external.appendingPathComponent(named[0]),
                                         to: external.appendingPathComponent(named[0] + ".interim"))
        // A save that never committed, and a file a batch delete (or a kill) left.
        let neverCommitted = "0D1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D.interim", unnamed = "1D1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D"
        try Data(repeating: 7, count: 1000).write(to: external.appendingPathComponent(neverCommitted))
        try Data(repeating: 8, count: 500).write(to: external.appendingPathComponent(unnamed))

        let doctor = try CLI.run(["doctor", store, "--format", "json"])
        XCTAssertEqual(doctor.status, 1, doctor.stderr)
        let findings = (try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any])?["findings"] as? [[String: Any]] ?? []
        let byCheck = Dictionary(grouping: findings) { $0["check"] as? String ?? "" }
        XCTAssertEqual(byCheck["external_interim"]?.first?["count"] as? Int, 1, "\(findings)")
        XCTAssertNil(byCheck["external_missing"], "a reference whose .interim is there is not reported missing: \(findings)")
        let orphan = byCheck["external_orphan"]?.first?["detail"] as? String ?? ""
        XCTAssertTrue(orphan.contains("2 file(s)") && orphan.contains("1500 bytes"), orphan)

        let save = try CLI.run([store, "-c", "update Person/p1 age=77", "-c", "save"])
        XCTAssertEqual(save.status, 0, save.stderr)
        XCTAssertTrue(save.stderr.contains("1 externally stored value(s) a killed save left under .interim names were put in place"), save.stderr)
        XCTAssertTrue(save.stderr.contains("2 external data file(s) no row names were removed (1500 bytes)"), save.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: external.path).sorted(), named)
        let state = try StoreState.read(store)
        XCTAssertEqual(state.dangling, [])
        XCTAssertEqual(state.unreferenced, [])
        XCTAssertEqual(try CLI.run(["doctor", store]).status, 0)
    }

    /// While another process has the store open, an `.interim` may be its save in progress:
    /// it is left alone (doctor still names it), and only files no row names are swept.
    func testAnotherProcesssInterimFilesAreLeftAlone() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 30, photos: [CrashSafetyTests.photo]).path
        let external = folder.appendingPathComponent(".People_SUPPORT/_EXTERNAL_DATA")
        let pending = "2D1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D.interim"
        try Data(repeating: 7, count: 1000).write(to: external.appendingPathComponent(pending))
        let holder = try ChildProcess(["/bin/sh", "-c", "exec 3<\"$0\"; sleep 30", store], environment: [:], files: [:])
        defer { kill(holder.pid, SIGKILL); _ = holder.waitForEnding() }
        let deadline = Date(timeIntervalSinceNow: 10)
        while ProcessUse.others(using: [store]).isEmpty && Date() < deadline { usleep(20_000) }
        let save = try CLI.run([store, "-c", "update Person/p1 age=77", "-c", "save"])
        XCTAssertEqual(save.status, 0, save.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: external.appendingPathComponent(pending).path), save.stderr)
    }
}

import Foundation
import XCTest

/// `snapshot`, `snapshots` and `restore` on the example store, with the library in the
/// test's own folder (`XDG_DATA_HOME`): a copy taken while another process writes, the
/// store put back as it was, and the refusals a restore owes the app.
final class SnapshotTests: ExampleStoreTestCase {
    private var library: [String: String] { ["XDG_DATA_HOME": folder.appendingPathComponent("data").path] }

    private func cdinspect(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        try CLI.run(arguments, environment: library, timeout: 120)
    }

    private func succeeds(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try cdinspect(arguments)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        return result.stdout
    }

    private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    func testRestorePutsTheStoreBackAsTheSnapshotHadIt() throws {
        let taken = try XCTUnwrap(try json(try succeeds(["snapshot", store, "clean", "--format", "json"])) as? [String: Any])
        let snapshotFolder = try XCTUnwrap(taken["path"] as? String)
        XCTAssertTrue(snapshotFolder.hasPrefix(folder.appendingPathComponent("data/cdinspect/snapshots/\(Fixtures.exampleUUID)/clean").path))
        // Not checked unless asked; --check records what quick_check found, and snapshots lists both.
        XCTAssertEqual(taken["check"] as? String, "not run")
        XCTAssertEqual((taken["entityCounts"] as? [String: Int])?["Person"], 50)
        let checked = try XCTUnwrap(try json(try succeeds(["snapshot", store, "later", "--check", "--format", "json"])) as? [String: Any])
        XCTAssertEqual(checked["check"] as? String, "ok")
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(checked["path"] as? String)).appendingPathComponent("manifest.json"))) as? [String: Any])
        XCTAssertEqual(manifest["check"] as? String, "ok")
        XCTAssertEqual(try succeeds(["snapshots", store, "--format", "csv"]).split(separator: "\n").map { $0.split(separator: ",").prefix(4).joined(separator: ",") },
                       ["name,time,objects,check", "clean,\(taken["time"] as? String ?? ""),104,not run", "later,\(checked["time"] as? String ?? ""),104,ok"])
        // The copy is a plain store: any command opens it, and it holds what the store held.
        XCTAssertEqual(try succeeds(["count", try XCTUnwrap(taken["store"] as? String), "Person"]), "50\n")

        _ = try succeeds(["batch-update", store, "Person", "--set", "age=1"])
        _ = try succeeds([store, "-c", "insert Person name=newcomer id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F age=2", "-c", "save"])
        XCTAssertEqual(try succeeds(["count", store, "Person"]), "51\n")

        let restored = try succeeds(["restore", store, "clean"])
        XCTAssertTrue(restored.contains("restored \(store!) from snapshot clean"), restored)
        XCTAssertEqual(try succeeds(["count", store, "Person"]), "50\n")
        XCTAssertEqual(try succeeds(["count", store, "Person", "--where", "age == 1"]), "0\n")
        XCTAssertEqual(try succeeds(["fetch", store, "Person", "--where", "name == 'newcomer'", "--as", "count"]), "0\n")
        // Still the app's store: WAL mode, and Core Data's bookkeeping as the snapshot had it.
        let info = try XCTUnwrap(try json(try succeeds(["info", store, "--format", "json"])) as? [String: Any])
        XCTAssertEqual(info["journalMode"] as? String, "wal")
        XCTAssertEqual(try SQLiteShell.run(store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'"), "50")

        // What was replaced is a snapshot too, and restoring it brings the changes back.
        let listed = try XCTUnwrap(try json(try succeeds(["snapshots", store, "--format", "json"])) as? [[String: Any]])
        let names = listed.compactMap { $0["name"] as? String }
        XCTAssertTrue(names.contains("clean"), "\(names)")
        let kept = try XCTUnwrap(names.first { $0.hasPrefix("before-restore-") }, "\(names)")
        _ = try succeeds(["restore", store, kept])
        XCTAssertEqual(try succeeds(["count", store, "Person"]), "51\n")
    }

    /// A snapshot written with `--to before` is named `before`, says it is outside the
    /// library, and `restore` takes the snapshot and the store in either order (the order
    /// `diff` takes them in too): a snapshot's folder is never taken for the store. The
    /// listing says which store file each snapshot came from.
    func testASnapshotWrittenElsewhereIsNamedByItsFolderAndRestoresInEitherOrder() throws {
        let store: String = self.store
        let elsewhere = folder.appendingPathComponent("before").path
        let taken = try cdinspect(["snapshot", store, "--to", elsewhere])
        XCTAssertEqual(taken.status, 0, taken.stderr)
        XCTAssertTrue(taken.stdout.hasPrefix("snapshot before of"), taken.stdout)
        XCTAssertTrue(taken.stdout.contains("outside the library"), taken.stdout)
        let before = try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON")
        try SQLiteShell.run(store, "DELETE FROM ZPERSON WHERE Z_PK > 10")
        let restored = try cdinspect(["restore", elsewhere, store])
        XCTAssertEqual(restored.status, 0, restored.stderr)
        XCTAssertTrue(restored.stdout.hasPrefix("restored \(store) from snapshot before"), restored.stdout)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON"), before)
        _ = try succeeds(["snapshot", store, "inlibrary"])
        let listed = try succeeds(["snapshots", store, "--format", "csv"])
        XCTAssertTrue(listed.hasPrefix("name,time,objects,check,externalDataFiles,path,from\n"), listed)
        XCTAssertTrue(listed.contains(",\(store)\n"), listed)
    }

    func testASnapshotTakenWhileAnotherProcessWritesIsWhole() throws {
        // A writer commits 200 rows, one transaction each, while the snapshot is taken.
        // (The row and its key counter in one transaction, as Core Data commits them: the shell
        // commits each statement alone otherwise.)
        let script = "i=1000; while [ $i -lt 1200 ]; do sqlite3 \"$0\" \"PRAGMA busy_timeout=5000; BEGIN; "
            + "INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) VALUES ($i, 3, 1, 'w$i', 40); "
            + "UPDATE Z_PRIMARYKEY SET Z_MAX = $i WHERE Z_NAME = 'Person'; COMMIT;\" || exit 1; i=$((i+1)); done"
        let writer = try ChildProcess(["/bin/sh", "-c", script, store], environment: ProcessInfo.processInfo.environment, files: [:])
        let target = folder.appendingPathComponent("during")
        _ = try succeeds(["snapshot", store, "--to", target.path, "--check"])
        XCTAssertEqual(writer.wait().status, 0)
        let copy = target.appendingPathComponent("People.sqlite").path
        let manifest = try XCTUnwrap(try json(String(decoding: try Data(contentsOf: target.appendingPathComponent("manifest.json")), as: UTF8.self))
                                     as? [String: Any])
        XCTAssertEqual(manifest["check"] as? String, "ok")
        // Whatever moment it caught, the copy is of one moment: its rows and its Z_MAX agree.
        let rows = try XCTUnwrap(Int(try SQLiteShell.run(copy, "SELECT count(*) FROM ZPERSON").trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertTrue((50...250).contains(rows), "\(rows)")
        let max = try XCTUnwrap(Int(try SQLiteShell.run(copy, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'")
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(max, rows == 50 ? 50 : 999 + rows - 50)
        XCTAssertEqual((manifest["entityCounts"] as? [String: Int])?["Person"], rows)
        XCTAssertEqual(try SQLiteShell.run(copy, "PRAGMA journal_mode"), "delete")
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy + "-wal"))
        // --to takes a new or empty folder only.
        let again = try cdinspect(["snapshot", store, "--to", target.path])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("exists: a snapshot is written into a new or empty folder"), again.stderr)
    }

    func testExternalDataGoesWithTheSnapshotAndComesBack() throws {
        let external = folder.appendingPathComponent(".People_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        try Data("photo".utf8).write(to: external.appendingPathComponent("A1B2"))
        let taken = try XCTUnwrap(try json(try succeeds(["snapshot", store, "with-photo", "--format", "json"])) as? [String: Any])
        XCTAssertEqual(taken["externalDataFiles"] as? Int, 1)

        try FileManager.default.removeItem(at: external.appendingPathComponent("A1B2"))
        try Data("later".utf8).write(to: external.appendingPathComponent("C3D4"))
        _ = try succeeds(["restore", store, "with-photo"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: external.path), ["A1B2"])
        XCTAssertEqual(try Data(contentsOf: external.appendingPathComponent("A1B2")), Data("photo".utf8))
    }

    /// A snapshot whose copy has a damaged page is refused before anything changes: the store,
    /// its -wal and the library are as they were, and the one line names the problem.
    func testRestoreRefusesADamagedSnapshot() throws {
        let target = folder.appendingPathComponent("damaged")
        _ = try succeeds(["snapshot", store, "--to", target.path])
        let copy = target.appendingPathComponent("People.sqlite").path
        let pageSize = try XCTUnwrap(Int(try SQLiteShell.run(copy, "PRAGMA page_size").trimmingCharacters(in: .whitespacesAndNewlines)))
        let root = try XCTUnwrap(Int(try SQLiteShell.run(copy, "SELECT rootpage FROM sqlite_master WHERE name = 'ZPERSON'")
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        // The table's b-tree page header overwritten: a page SQLite cannot read as a b-tree page.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: copy))
        try handle.seek(toOffset: UInt64((root - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 64))
        try handle.close()

        _ = try succeeds(["batch-update", store, "Person", "--set", "age=9"])
        let before = try storeFiles()
        let refused = try cdinspect(["restore", store, target.path])
        XCTAssertEqual(refused.status, 1)
        let lines = refused.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("cdinspect: error: the snapshot \(copy) is damaged (SQLite's quick_check: "), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("nothing was restored"), refused.stderr)
        XCTAssertEqual(try storeFiles(), before)
        XCTAssertEqual(try succeeds(["count", store, "Person", "--where", "age == 9"]), "50\n")
        // No before-restore snapshot was kept either: nothing was replaced.
        XCTAssertEqual(try succeeds(["snapshots", store, "--format", "csv"]), "name,time,objects,check,externalDataFiles,path,from\n")
    }

    /// The store file and its -wal, byte for byte (a read leaves an empty -wal where there was none).
    private func storeFiles() throws -> [Data] {
        [try Data(contentsOf: URL(fileURLWithPath: store)), FileManager.default.contents(atPath: store + "-wal") ?? Data()]
    }

    func testRestoreRefusesWhatWouldHurtTheApp() throws {
        let target = folder.appendingPathComponent("kept")
        _ = try succeeds(["snapshot", store, "--to", target.path])

        // Another process has the store open: named, and nothing changed.
        let app = try SessionDriver(store: store)
        XCTAssertEqual(app.run("count Person").out, "50\n")
        _ = try succeeds(["batch-update", store, "Person", "--set", "age=7"])
        let refused = try cdinspect(["restore", store, target.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("is open in process "), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("(cdinspect)"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--force"), refused.stderr)
        XCTAssertEqual(try succeeds(["count", store, "Person", "--where", "age == 7"]), "50\n")
        _ = try succeeds(["restore", store, target.path, "--force"])
        XCTAssertEqual(try succeeds(["count", store, "Person", "--where", "age == 7"]), "0\n")
        XCTAssertEqual(try app.finish(), 0)

        // A snapshot of another model version: the entities are named, and nothing changed.
        let manifestURL = target.appendingPathComponent("manifest.json")
        var manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        var hashes = try XCTUnwrap(manifest["modelVersionHashes"] as? [String: String])
        hashes["Person"] = Data(repeating: 1, count: 32).base64EncodedString()
        manifest["modelVersionHashes"] = hashes
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        _ = try succeeds(["batch-update", store, "Person", "--set", "age=8"])
        let otherModel = try cdinspect(["restore", store, target.path])
        XCTAssertEqual(otherModel.status, 1)
        XCTAssertTrue(otherModel.stderr.contains("the version hashes of Person differ"), otherModel.stderr)
        XCTAssertEqual(try succeeds(["count", store, "Person", "--where", "age == 8"]), "50\n")

        // Unknown names, folders that are no snapshot, and a session, whose contexts hold the store.
        let unknown = try cdinspect(["restore", store, "nothing-here"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no snapshot named 'nothing-here' of this store"), unknown.stderr)
        let notOne = try cdinspect(["restore", store, folder.path])
        XCTAssertTrue(notOne.stderr.contains("is no snapshot: it has no manifest.json"), notOne.stderr)
        let inSession = try cdinspect([store, "-c", "restore \(target.path)"])
        XCTAssertEqual(inSession.status, 64)
        XCTAssertTrue(inSession.stderr.contains("run it as 'cdinspect restore STORE"), inSession.stderr)
        let badName = try cdinspect(["snapshot", store, "../escape"])
        XCTAssertEqual(badName.status, 1)
        XCTAssertTrue(badName.stderr.contains("cannot name a snapshot"), badName.stderr)
    }
}

import Foundation
import XCTest

/// Opening is read-only and every bad file gets a one-line error with exit status 1.
final class SafeOpeningTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    func assertFails(_ arguments: [String], containing text: String, prefix: [String] = [],
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try CLI.run(arguments, prefix: prefix)
        XCTAssertEqual(result.status, 1, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("cdinspect: error: "), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(text), "\(result.stderr) lacks \(text)", file: file, line: line)
        XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, "one line: \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
    }

    func testReadOnlySessionLeavesStoreAndWALByteIdentical() throws {
        for relative in ["RhetTbull_PhotoScript/Photos.sqlite",
                         "wibosco_CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite",
                         "hwaxxer_BookMigration/Model1.sqlite"] {
            let store = try Fixtures.copy(relative, into: try folder.appendingPathComponent(UUID().uuidString).creatingDirectory())
            let before = (bytes(store.path), bytes(store.path + "-wal"))
            XCTAssertNotNil(before.0)
            for command in ["info", "entities", "schema"] {
                XCTAssertEqual(try CLI.run([command, store.path]).status, 0)
            }
            XCTAssertEqual(try CLI.run([store.path, "--readonly"], stdin: "info\nentities\nschema\n").status, 0)
            XCTAssertEqual(try CLI.run([store.path, "-c", "entities", "-c", "schema"]).status, 0)
            XCTAssertEqual(bytes(store.path), before.0, "\(relative): store changed")
            XCTAssertEqual(bytes(store.path + "-wal"), before.1, "\(relative): -wal changed")
            // The journal mode (header bytes 18/19) is unchanged too, since the file is.
        }
    }

    func testMissingPath() throws {
        try assertFails(["info", folder.appendingPathComponent("nope.sqlite").path], containing: "no such file")
    }

    func testDirectory() throws {
        try assertFails(["entities", folder.path], containing: "is a directory")
    }

    func testNotSQLite() throws {
        let path = folder.appendingPathComponent("notes.txt").path
        try "hello, this is text\n".write(toFile: path, atomically: true, encoding: .utf8)
        try assertFails(["info", path], containing: "is not an SQLite database")
        let empty = folder.appendingPathComponent("empty.sqlite").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        try assertFails(["info", empty], containing: "is not an SQLite database")
    }

    /// A named pipe given as the store is refused at once. Opening it for reading used to
    /// wait for a writer that never came.
    func testNamedPipe() throws {
        let path = folder.appendingPathComponent("pipe.sqlite").path
        XCTAssertEqual(mkfifo(path, 0o644), 0)
        let result = try CLI.run(["info", path], timeout: 20)
        XCTAssertFalse(result.signaled, "killed after 20 s: a hang")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr, "cdinspect: error: \(path) is not an SQLite database (no \"SQLite format 3\" header)\n")
    }

    func testTruncatedFile() throws {
        let store = try Fixtures.exampleStore(in: folder)
        let data = try XCTUnwrap(bytes(store.path))
        try data.prefix(data.count / 2).write(to: store)
        try assertFails(["entities", store.path], containing: "truncated")
        try data.prefix(60).write(to: store)
        try assertFails(["entities", store.path], containing: "truncated")
    }

    func testCorruptFile() throws {
        let store = try Fixtures.exampleStore(in: folder)
        var data = try XCTUnwrap(bytes(store.path))
        // Scribble over the schema page after the 100-byte header.
        for i in 100..<4096 { data[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try data.write(to: store)
        try assertFails(["entities", store.path], containing: "is damaged")
    }

    func testLockedStore() throws {
        let store = try Fixtures.exampleStore(in: folder)
        // In WAL mode a writer's lock does not stop readers; in a rollback journal it does.
        try SQLiteShell.run(store.path, "PRAGMA journal_mode=DELETE")
        let lock = try StoreLock(store.path)
        let result = try CLI.run(["entities", store.path], environment: ["CDINSPECT_BUSY_TIMEOUT": "0.2"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("is locked by another process"), result.stderr)
        try lock.release()
    }

    /// Root reads anything, so the permission cases run the binary as `nobody` (and skip
    /// where nothing can switch users).
    func asUnprivileged() throws -> (prefix: [String], binary: URL) {
        guard getuid() == 0 else { return ([], CLI.binary) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("run as root without /usr/bin/setpriv to run as another user")
        }
        let copy = folder.appendingPathComponent("cdinspect-bin")
        try FileManager.default.copyItem(at: CLI.binary, to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
        return (["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"], copy)
    }

    func testNoPermission() throws {
        let runner = try asUnprivileged()
        let store = try Fixtures.exampleStore(in: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: store.path)
        let result = try CLI.run(["info", store.path], executable: runner.binary, prefix: runner.prefix)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cdinspect: error: cannot read \(store.path): permission denied\n")
    }

    func testWALStoreInReadOnlyFolderWithoutSharedMemory() throws {
        let runner = try asUnprivileged()
        let sub = try folder.appendingPathComponent("readonly").creatingDirectory()
        let store = try Fixtures.copy("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", into: sub, sidecars: ["-wal"])
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: sub.path)
        // No -shm: no process has the store open, so a command that only reads reads the main
        // file and the -wal's commits in place, and needs no -shm.
        let read = try CLI.run(["count", store.path, "Post"], executable: runner.binary, prefix: runner.prefix)
        XCTAssertEqual(read.status, 0, read.stderr)
        // What SQLite reads from a copy in a folder it may write (main file and -wal).
        let oracle = try Fixtures.copy("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite",
                                       into: try Fixtures.temporaryDirectory(self), sidecars: ["-wal"])
        let expected = try SQLiteShell.read(oracle.path, "SELECT count(*) FROM ZPOST")
        XCTAssertEqual(read.stdout, expected + "\n")
        // A session may write, so it opens the store through SQLite, which needs the -shm.
        let result = try CLI.run([store.path, "-c", "entities"], executable: runner.binary, prefix: runner.prefix)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("-shm file cannot be created"), result.stderr)
        XCTAssertTrue(result.stderr.contains("copy the store together with its -wal"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.path + "-shm"))
    }
}

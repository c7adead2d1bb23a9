import Foundation
import XCTest

/// A write that cannot finish (a full disk, a folder it may not write in) stops with one line
/// of error and leaves the store exactly as it was: its rows, and the files beside it.
/// A full disk is a file-size limit (`ulimit -f`): a write past it fails with EFBIG, as a
/// full disk fails with ENOSPC, and cdinspect ignores the SIGXFSZ that would otherwise kill it.
/// The limit is 600 KB and the photos 1 MiB: ThreadSanitizer's runtime writes a 512 KB file as
/// a process starts (its read-only shadow, `$TMPDIR/tsan.rodata.PID`) and dies of SIGBUS on
/// the mapping of a file that could not grow so far, so a lower limit would stop a
/// thread-sanitized cdinspect before it ran (`Tests/sanitize.sh thread`).
final class WriteFailureTests: XCTestCase {
    static let photo = 1 << 20
    static let limit = 600

    var folder: URL!
    var store: String { folder.appendingPathComponent("People.sqlite").path }
    var external: URL { folder.appendingPathComponent(".People_SUPPORT/_EXTERNAL_DATA") }

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
        _ = try Fixtures.exampleStore(in: folder, people: 30, photos: [Self.photo])
        let people = (0..<3).map { CrashSafetyTests.person("imported\($0)", 300 + $0, age: 20 + $0, photo: 40 + $0, photoBytes: Self.photo) }
        try "[\(people.joined(separator: ", "))]".write(to: folder.appendingPathComponent("people.json"), atomically: true, encoding: .utf8)
    }

    private var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: external.path)) ?? []).sorted() }

    /// `bash -c 'ulimit -f KB; exec …'`: files this run writes cannot grow past `kilobytes`.
    private func limited(_ kilobytes: Int) -> [String] { ["/bin/bash", "-c", "ulimit -f \(kilobytes); exec \"$0\" \"$@\""] }

    private func assertOneLineError(_ result: CLI.Result, mentioning words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 1, result.stderr, file: file, line: line)
        XCTAssertFalse(result.signaled, "killed by a signal: \(result.stderr)", file: file, line: line)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("cdinspect: error: "), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(words), "\(words) in: \(result.stderr)", file: file, line: line)
    }

    /// Root writes anywhere: the read-only cases run as `nobody`, on a store it may write.
    private func asNobody() throws -> (prefix: [String], binary: URL) {
        guard getuid() == 0 else { return ([], CLI.binary) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("run as root without /usr/bin/setpriv to run as another user")
        }
        let copy = folder.appendingPathComponent("cdinspect-bin")
        try FileManager.default.copyItem(at: CLI.binary, to: copy)
        for path in [folder.path, copy.path, store, folder.appendingPathComponent(".People_SUPPORT").path, external.path] {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasPrefix("People.sqlite") || name.hasSuffix(".json") {
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: folder.appendingPathComponent(name).path)
        }
        return (["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"], copy)
    }

    func testAnImportOnAFullDiskSaysSoAndChangesNothing() throws {
        let before = try StoreState.read(store), files = self.files
        let result = try CLI.run(["import", store, folder.appendingPathComponent("people.json").path, "--entity", "Person"],
                                 prefix: limited(Self.limit))
        assertOneLineError(result, mentioning: "File too large")
        XCTAssertTrue(try StoreState.read(store).holdsTheSame(as: before))
        XCTAssertEqual(self.files, files, "no file left behind")
    }

    func testAnImportIntoAReadOnlyFolderSaysSoAndChangesNothing() throws {
        let runner = try asNobody()
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: external.path)
        let before = try StoreState.read(store), files = self.files
        let result = try CLI.run(["import", store, folder.appendingPathComponent("people.json").path, "--entity", "Person"],
                                 executable: runner.binary, prefix: runner.prefix)
        assertOneLineError(result, mentioning: "Permission denied")
        XCTAssertTrue(result.stderr.contains("nothing was saved"), result.stderr)
        XCTAssertTrue(try StoreState.read(store).holdsTheSame(as: before))
        XCTAssertEqual(self.files, files)
    }

    /// The snapshot holds the three photos; since then one was replaced and a person with a
    /// photo was added, so a restore must write a photo back.
    private func changedSinceSnapshot(library: URL) throws {
        let kept = try CLI.run(["snapshot", store, "kept", "--to", folder.appendingPathComponent("kept").path])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        let script = "update Person/p4 photo=\(CrashSafetyTests.photo(seed: 51))\n"
            + "insert Person name=new id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F photo=\(CrashSafetyTests.photo(seed: 52))\nsave\n"
        XCTAssertEqual(try CLI.run([store], stdin: script).status, 0)
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
    }

    func testARestoreOnAFullDiskSaysSoAndChangesNothing() throws {
        let library = folder.appendingPathComponent("library")
        try changedSinceSnapshot(library: library)
        let before = try StoreState.read(store), files = self.files
        let result = try CLI.run(["restore", store, folder.appendingPathComponent("kept").path],
                                 environment: ["XDG_DATA_HOME": library.path], prefix: limited(Self.limit))
        assertOneLineError(result, mentioning: "File too large")
        XCTAssertTrue(try StoreState.read(store).holdsTheSame(as: before))
        XCTAssertEqual(self.files, files)
    }

    func testARestoreIntoAReadOnlyFolderSaysSoAndChangesNothing() throws {
        let library = folder.appendingPathComponent("library")
        try changedSinceSnapshot(library: library)
        let runner = try asNobody()
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: library.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: external.path)
        let before = try StoreState.read(store), files = self.files
        let result = try CLI.run(["restore", store, folder.appendingPathComponent("kept").path],
                                 executable: runner.binary, environment: ["XDG_DATA_HOME": library.path], prefix: runner.prefix)
        assertOneLineError(result, mentioning: "Permission denied")
        XCTAssertTrue(result.stderr.contains("nothing was changed"), result.stderr)
        XCTAssertTrue(try StoreState.read(store).holdsTheSame(as: before))
        XCTAssertEqual(self.files, files)
    }
}

import Foundation
import XCTest

/// `pull`: an app's store copied off a device through `xcrun devicectl`, kept as a snapshot.
/// A stand-in `xcrun` on PATH records its arguments and serves a fake container's files.
final class PullTests: ExampleStoreTestCase {
    private var container: URL!
    private var log: URL!
    private var environment: [String: String] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        container = folder.appendingPathComponent("container")
        let support = container.appendingPathComponent("Library/Application Support")
        try FileManager.default.createDirectory(at: support, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: store, toPath: support.appendingPathComponent("People.sqlite").path)
        log = folder.appendingPathComponent("xcrun.log")
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        // Records each call; serves `device copy from` out of the container, `device info
        // files` as a listing, as devicectl would.
        let script = """
            #!/bin/sh
            printf '%s\\n' "$*" >> '\(log.path)'
            [ "$1" = devicectl ] || exit 2
            shift
            case "$1 $2 $3" in
            "device copy from")
                while [ $# -gt 0 ]; do
                    case "$1" in --source) source=$2; shift ;; --destination) destination=$2; shift ;; esac
                    shift
                done
                [ -e '\(container.path)'/"$source" ] || { echo "ERROR: no such file $source" >&2; exit 1; }
                cp -R '\(container.path)'/"$source" "$destination" ;;
            "device info files")
                while [ $# -gt 0 ]; do
                    case "$1" in --json-output) output=$2; shift ;; esac
                    shift
                done
                printf '{"result": {"files": [%s]}}' "$(cd '\(container.path)' && find . -type f | sed 's|^\\./||; s|.*|{"relativePath": "&"}|' | paste -sd, -)" > "$output" ;;
            *) exit 2 ;;
            esac
            """
        let xcrun = bin.appendingPathComponent("xcrun")
        try Data(script.utf8).write(to: xcrun)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: xcrun.path)
        environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
    }

    private func pull(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["pull", "--device", "Ann's iPhone", "--app", "com.example.people"] + arguments, environment: environment)
    }

    func testPullKeepsTheDevicesStoreAsASnapshotThatTheNextPullIsComparedWith() throws {
        let first = try pull(["first"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.hasPrefix("pulled Library/Application Support/People.sqlite of com.example.people from Ann's iPhone: snapshot first, 104 object(s), quick_check ok"),
                      first.stdout)
        let calls = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(calls.contains("devicectl device info files --device Ann's iPhone --domain-type appDataContainer --domain-identifier com.example.people --json-output "), calls)
        XCTAssertTrue(calls.contains("devicectl device copy from --device Ann's iPhone --domain-type appDataContainer --domain-identifier com.example.people --source Library/Application Support/People.sqlite --destination "), calls)
        XCTAssertTrue(calls.contains("--source Library/Application Support/People.sqlite-wal "), calls)
        XCTAssertTrue(calls.contains("--source Library/Application Support/.People_SUPPORT "), calls)

        // The app changes its store; the second pull is kept beside the first and compared.
        let onDevice = container.appendingPathComponent("Library/Application Support/People.sqlite").path
        XCTAssertEqual(try CLI.run(["batch-update", onDevice, "Person", "--set", "age=7", "--where", "name == \"dave1\""]).status, 0)
        let second = try pull(["--to", folder.appendingPathComponent("second").path])
        XCTAssertEqual(second.status, 0, second.stderr)
        let diff = try CLI.run(["diff", "first", folder.appendingPathComponent("second").path, "--format", "csv"], environment: environment)
        XCTAssertEqual(diff.status, 1, diff.stderr)
        XCTAssertTrue(diff.stdout.contains("Person,updated,\(uri("Person/p2")),age,19,7"), diff.stdout)
        let listed = try CLI.run(["snapshots", folder.appendingPathComponent("second/People.sqlite").path, "--format", "csv"], environment: environment)
        XCTAssertTrue(listed.stdout.contains("\nfirst,"), listed.stdout)
    }

    func testPullSaysWhatWentWrong() throws {
        // Two stores in the container: the user names one.
        try FileManager.default.copyItem(atPath: store, toPath: container.appendingPathComponent("Library/Other.sqlite").path)
        let two = try pull([])
        XCTAssertEqual(two.status, 64)
        XCTAssertTrue(two.stderr.contains("holds 2 stores (Library/Application Support/People.sqlite, Library/Other.sqlite): name one with --store"),
                      two.stderr)
        // A store that is not there: devicectl's own words.
        let missing = try pull(["--store", "Library/Nothing.sqlite"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("xcrun devicectl device copy from failed (exit 1): ERROR: no such file Library/Nothing.sqlite"),
                      missing.stderr)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
        // No xcrun at all (Linux, or no Xcode).
        var bare = environment
        bare["PATH"] = "/nonexistent"
        let noXcrun = try CLI.run(["pull", "--device", "d", "--app", "a", "--store", "x.sqlite"], environment: bare)
        XCTAssertEqual(noXcrun.status, 1)
        XCTAssertTrue(noXcrun.stderr.contains("xcrun devicectl"), noXcrun.stderr)
    }
}

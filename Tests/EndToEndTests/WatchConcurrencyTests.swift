import Foundation
import GRDB
import XCTest

/// `watch` beside a busy app: a writer in this process commits 3,000 times and checkpoints
/// with TRUNCATE every 100 commits, as an app that keeps its -wal small does, while a
/// `cdinspect watch` process follows the store. watch holds no read transaction between looks,
/// so every checkpoint completes and the -wal ends empty; every change is still reported.
final class WatchConcurrencyTests: XCTestCase {
    struct Run {
        var busyCheckpoints: Int
        var deleted: [Int64]
        var lastAge: Int
    }

    /// Commits as an app would: one transaction per change, with a busy timeout.
    func write(_ store: String, from first: Int64) throws -> Run {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: store, configuration: configuration)
        let person = try queue.read { try Int64.fetchOne($0, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'") } ?? 0
        var run = Run(busyCheckpoints: 0, deleted: [], lastAge: 0)
        for i in 0..<3_000 {
            let key = first + Int64(i)
            try queue.write { db in
                try db.execute(sql: "INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE, ZISACTIVE) VALUES (?, ?, 1, ?, ?, 1)",
                               arguments: [key, person, "w\(i)", i % 100])
                if i % 7 == 0 {
                    try db.execute(sql: "UPDATE ZPERSON SET ZAGE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = 1", arguments: [1_000 + i])
                    run.lastAge = 1_000 + i
                }
                if i % 50 == 49 {
                    try db.execute(sql: "DELETE FROM ZPERSON WHERE Z_PK = ?", arguments: [key - 30])
                    run.deleted.append(key - 30)
                }
            }
            if i % 100 == 99 {
                let result = try queue.writeWithoutTransaction { try Row.fetchOne($0, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
                if (result?[0] as Int?) != 0 { run.busyCheckpoints += 1 }
            }
        }
        try queue.close()
        return run
    }

    /// What watch costs the writer in time is measured, not asserted here:
    /// `Benchmarks/watch-overhead.sh` times the same writer alone and watched.
    func testAWriterThatCheckpointsIsNeverBlockedAndEveryChangeIsReported() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        try watchedRun(try freshStore(folder, "watched"), folder)
    }

    let first = 1_000

    func freshStore(_ folder: URL, _ name: String) throws -> String {
        let place = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        return try Fixtures.exampleStore(in: place, history: false).path
    }

    /// One watched run: every checkpoint succeeds, the -wal ends empty, every change is
    /// reported.
    func watchedRun(_ store: String, _ folder: URL) throws {
        let output = folder.appendingPathComponent("watch.jsonl").path
        let said = folder.appendingPathComponent("watch.err").path
        let watcher = try ChildProcess([CLI.binary.path, "watch", store, "Person", "--format", "json", "--timeout", "120"],
                                       environment: ProcessInfo.processInfo.environment, files: [1: output, 2: said])
        // The first look has read every row once: what is written from now on is reported.
        XCTAssertTrue(FileWait.until(said, contains: "Ctrl-C stops"), "the watch never said it was following")
        var watched: Run
        do {
            watched = try write(store, from: Int64(first))
        } catch {
            kill(watcher.pid, SIGKILL)
            _ = watcher.wait()
            throw error
        }
        // Wait for what happened, not for a time: the last row inserted is reported in the
        // look that read the last commit; a commit made after that line is out falls in a
        // later look, so once its event is out, every earlier one is too.
        XCTAssertTrue(FileWait.until(output, contains: "/Person/p\(first + 2_999)\""), "the watch never reported the last insert")
        XCTAssertEqual(StoreFile.size(store + "-wal"), 0, "the -wal after the last TRUNCATE")
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZAGE = 9999, Z_OPT = Z_OPT + 1 WHERE Z_PK = 1")
        watched.lastAge = 9_999
        XCTAssertTrue(FileWait.until(output, contains: "\"age\": {\"new\": 9999}"), "the watch never reported the last change")
        kill(watcher.pid, SIGINT)
        XCTAssertEqual(watcher.wait().status, 0)

        XCTAssertEqual(watched.busyCheckpoints, 0, "checkpoints that found a reader in the way")

        var inserted: [Int64: Int] = [:]
        var deleted = Set<Int64>()
        var ages: [Int] = []
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        for line in lines {
            let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let key = try XCTUnwrap(Int64((event["objectID"] as? String)?.split(separator: "p").last ?? ""))
            let changes = event["changes"] as? [String: [String: Any]] ?? [:]
            switch event["type"] as? String {
            case "insert": inserted[key, default: 0] += 1
            case "delete": deleted.insert(key)
            case "update" where key == 1: ages.append(changes["age"]?["new"] as? Int ?? -1)
            default: XCTFail("unexpected event: \(line)")
            }
        }
        for i in 0..<3_000 {
            let key = Int64(first + i)
            if watched.deleted.contains(key) {
                // Inserted and deleted between two looks merges into nothing; else both show.
                XCTAssertEqual(inserted[key] ?? 0, deleted.contains(key) ? 1 : 0, "row \(key)")
            } else {
                XCTAssertEqual(inserted[key], 1, "row \(key)")
            }
        }
        XCTAssertTrue(deleted.isSubset(of: Set(watched.deleted)))
        XCTAssertEqual(ages.last, watched.lastAge)
    }
}

private enum StoreFile {
    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }
}

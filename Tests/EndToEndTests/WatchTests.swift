import Foundation
import XCTest

/// `watch` as a script follows a store: a watcher process prints JSON lines while this test
/// commits through cdinspect and through the sqlite3 shell.
final class WatchTests: XCTestCase {
    func testEveryCommitAppearsInOrderAsItIsMade() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, history: true).path
        let watcher = try RunningChild([CLI.binary.path, "watch", store, "Person", "--format", "json", "--limit", "5", "--timeout", "60"])
        // Its first look has read every row: a commit from now on is reported.
        watcher.errors.expect(Self.ready, timeout: 60)

        // Each commit waits for its event (one line) before the next is made, so that no two
        // commits fall between the same two looks, however loaded the machine is.
        func commit(_ body: () throws -> Void) rethrows {
            try body()
            watcher.output.expect("\n", timeout: 30)
        }
        try commit { XCTAssertEqual(try CLI.run([store, "-c", "insert Person name=zed id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F age=7", "-c", "save"]).status, 0) }
        try commit { try SQLiteShell.run(store, "UPDATE ZPERSON SET ZAGE = 99, Z_OPT = Z_OPT + 1 WHERE Z_PK = 3") }
        try commit { XCTAssertEqual(try CLI.run(["batch-update", store, "Person", "--set", "age=age+1", "--where", "name == \"zed\""]).status, 0) }
        try commit { try SQLiteShell.run(store, "DELETE FROM ZPERSON WHERE Z_PK = 3") }
        try commit { XCTAssertEqual(try CLI.run([store, "-c", "context set author tester", "-c", "delete Person/p51", "-c", "save"]).status, 0) }

        XCTAssertEqual(watcher.wait(), 0)
        let lines = watcher.output.text.split(separator: "\n")
        XCTAssertEqual(lines.count, 5, watcher.output.text)
        guard lines.count == 5 else { return }
        let events = try lines.map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(events.map { "\($0["type"]!) \(($0["objectID"] as? String ?? "").split(separator: "/").suffix(2).joined(separator: "/"))" },
                       ["insert Person/p51", "update Person/p3", "update Person/p51", "delete Person/p3", "delete Person/p51"])
        XCTAssertEqual(events.map { $0["author"] as? String ?? "-" }, ["cdinspect", "-", "cdinspect", "-", "tester"])
        let age = { (i: Int) in (events[i]["changes"] as? [String: [String: Any]])?["age"] }
        XCTAssertEqual(age(0)?["new"] as? Int, 7)
        XCTAssertEqual(age(1)?["new"] as? Int, 99)
        XCTAssertEqual(age(2)?["new"] as? Int, 8)
        // watch keeps hashes, not values: a delete names the object only.
        XCTAssertEqual((events[4]["changes"] as? [String: Any])?.count, 0)
    }

    /// An idle watch reports nothing and ends at its timeout with status 0. (What it costs
    /// while idle is measured, not asserted: `Benchmarks/watch-idle.sh`.)
    func testAnIdleWatchEndsAtItsTimeoutSayingNothing() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        let r = try CLI.run(["watch", store, "--timeout", "2"], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
    }


    /// A running watch, driven through a list of changes, each with the
    /// number of events it should print, one line each (-1: the watch should end): the next
    /// change waits until they are there (30 seconds at most, then the test fails), so that no
    /// two changes fall between the same two looks on a loaded machine.
    func watch(_ store: String, _ arguments: [String], changes: [(events: Int, change: () throws -> Void)]) throws -> (status: Int32, events: [[String: Any]], stderr: String) {
        let child = try RunningChild([CLI.binary.path, "watch", store, "--format", "json", "--timeout", "60"] + arguments)
        child.errors.expect(Self.ready, timeout: 60)
        for (events, change) in changes {
            try change()
            for _ in 0..<max(events, 0) { child.output.expect("\n", timeout: 30) }
            // A change that must print nothing has no event to wait for: a few looks' time.
            if events == 0 { Thread.sleep(forTimeInterval: 0.4) }
        }
        let status: Int32
        if let ended = child.exitStatus(timeout: changes.last?.events == -1 ? 30 : 0) {
            status = ended
        } else {
            child.kill(SIGINT)
            status = child.wait()
        }
        let events = try child.output.text.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        // What it said on stderr besides that it was ready.
        let said = child.errors.text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains(Self.ready) }
        return (status, events, said.joined(separator: "\n"))
    }

    /// What a watch says on stderr once it follows the store.
    static let ready = "as other processes commit; Ctrl-C stops"

    func short(_ event: [String: Any]) -> String {
        let id = (event["objectID"] as? String ?? "").split(separator: "/").suffix(2).joined(separator: "/")
        let keys = (event["changes"] as? [String: Any] ?? [:]).keys.sorted().joined(separator: ",")
        return "\(event["type"] ?? "?") \(id)" + (event["type"] as? String == "update" ? " \(keys)" : "")
    }

    /// Each kind of change a watcher can miss: a plain SQL update that leaves Z_OPT alone,
    /// a to-many change as Core Data makes it (the foreign key on the other side, Z_OPT alone
    /// on this one), an object moving into and out of --where, a shell delete.
    func testEveryKindOfChangeIsReportedAndNamed() throws {
        let store = try Fixtures.exampleStore(in: try Fixtures.temporaryDirectory(self)).path
        let owner = try SQLiteShell.read(store, "SELECT ZOWNER FROM ZCAR WHERE Z_PK = 1")
        let other = owner == "2" ? "3" : "2"
        var r = try watch(store, ["Person"], changes: [
            (1, { _ = try SQLiteShell.run(store, "UPDATE ZPERSON SET ZNAME = 'plain' WHERE Z_PK = 5") }),
            (2, { _ = try SQLiteShell.run(store, "BEGIN; UPDATE ZCAR SET ZOWNER = \(other), Z_OPT = Z_OPT + 1 WHERE Z_PK = 1; "
                                      + "UPDATE ZPERSON SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (\(owner), \(other)); COMMIT;") }),
            (1, { _ = try SQLiteShell.run(store, "DELETE FROM ZPERSON WHERE Z_PK = 7") }),
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.events.map(short), ["update Person/p5 name", "update Person/p\(min(owner, other)) cars",
                                             "update Person/p\(max(owner, other)) cars", "delete Person/p7"])
        XCTAssertEqual((r.events[0]["changes"] as? [String: [String: Any]])?["name"]?["new"] as? String, "plain")

        r = try watch(store, ["Person", "--where", "age > 200"], changes: [
            (1, { _ = try SQLiteShell.run(store, "UPDATE ZPERSON SET ZAGE = 250 WHERE Z_PK = 4") }),
            (1, { _ = try SQLiteShell.run(store, "UPDATE ZPERSON SET ZAGE = 251 WHERE Z_PK = 4") }),
            (1, { _ = try SQLiteShell.run(store, "UPDATE ZPERSON SET ZAGE = 20 WHERE Z_PK = 4") }),
            (0, { _ = try SQLiteShell.run(store, "UPDATE ZPERSON SET ZAGE = 21 WHERE Z_PK = 4") }),
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.events.map(short), ["enters Person/p4", "update Person/p4 age", "leaves Person/p4"])
    }

    /// Rows of a sub-entity sharing its parent's table are named as their own entity, a
    /// deleted one too (it is gone from what watch remembers by the time it is reported).
    func testSubEntityRowsAreNamedAsTheirOwnEntity() throws {
        let store = try Fixtures.exampleStore(in: try Fixtures.temporaryDirectory(self)).path
        let sports = try SQLiteShell.read(store, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'SportsCar'")
        let keys = try SQLiteShell.read(store, "SELECT Z_PK FROM ZCAR WHERE Z_ENT = \(sports) ORDER BY Z_PK LIMIT 2").split(separator: "\n")
        XCTAssertEqual(keys.count, 2)
        let r = try watch(store, ["Car"], changes: [
            (1, { _ = try SQLiteShell.run(store, "UPDATE ZCAR SET ZYEAR = 1901 WHERE Z_PK = \(keys[0])") }),
            (1, { _ = try SQLiteShell.run(store, "DELETE FROM ZCAR WHERE Z_PK = \(keys[1])") }),
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.events.map(short), ["update SportsCar/p\(keys[0]) year", "delete SportsCar/p\(keys[1])"])
    }

    /// A store deleted, or another moved over it, ends the watch with one line and exit 1.
    func testAStoreReplacedOrDeletedWhileWatchedEndsTheWatch() throws {
        for replace in [true, false] {
            let folder = try Fixtures.temporaryDirectory(self)
            let store = try Fixtures.exampleStore(in: folder).path
            let copy = folder.appendingPathComponent("copy.sqlite").path
            try FileManager.default.copyItem(atPath: store, toPath: copy)
            let r = try watch(store, [], changes: [(-1, {
                if replace { _ = rename(copy, store) } else { try FileManager.default.removeItem(atPath: store) }
            })])
            XCTAssertEqual(r.status, 1, "replace \(replace)")
            XCTAssertTrue(r.stderr.hasPrefix("cdinspect: error: ") && r.stderr.contains("was deleted or replaced while it was watched"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
        let help = try CLI.run(["help", "watch"])
        XCTAssertTrue(help.stdout.contains("Changes made between two looks merge into one"), help.stdout)
    }

    func testBadArgumentsAndAStoreWithoutHistory() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        var r = try CLI.run(["watch", store, "--where", "age > 3"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("--where needs an ENTITY"), r.stderr)
        r = try CLI.run(["watch", store, "Nobody", "--timeout", "1"])
        XCTAssertEqual(r.status, 1)
        r = try CLI.run(["watch", store, "--timeout", "soon"])
        XCTAssertEqual(r.status, 64)
        // Without history a watch still reports changes, with no author.
        r = try CLI.run([store, "-c", "watch Person --timeout 0.3 --format csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "time,type,objectID,changes,author,contextName,processID\n")
    }
}

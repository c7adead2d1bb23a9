import Foundation
import XCTest

/// The scripts in Examples/ run as their comments say, through the built binary on a fresh
/// copy of the example store, and each step prints what the seed it comes from expects.
final class ExampleScriptTests: ExampleStoreTestCase {
    /// Runs `Examples/NAME` on this test's store with CSV as the default format.
    func run(_ name: String) throws -> CLI.Result {
        let script = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Examples/\(name)"), encoding: .utf8)
        return try CLI.run([store, "--format", "csv"], stdin: script)
    }

    /// Runs the shell script `Examples/NAME` as its comment says, with the built binaries.
    func shellScript(_ name: String) throws -> CLI.Result {
        let script = Fixtures.packageRoot.appendingPathComponent("Examples/\(name)").path
        return try CLI.run([script], executable: URL(fileURLWithPath: "/bin/sh"),
                           environment: ["CDINSPECT": CLI.binary.path, "CDI_EXAMPLE_STORE": CLI.generator.path], timeout: 120)
    }

    /// `Examples/follow-a-store.sh`: a watcher sees a second process's three commits, each
    /// with its author, and history lists the same three transactions.
    func testFollowAStoreScript() throws {
        let r = try shellScript("follow-a-store.sh")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 7, r.stdout)
        guard lines.count == 7 else { return }
        let events = try lines[0..<3].map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(events.map { $0["type"] as? String ?? "" }, ["insert", "update", "delete"])
        XCTAssertEqual(events.map { $0["author"] as? String ?? "" }, ["importer", "cdinspect", "cdinspect"])
        XCTAssertEqual(Set(events.map { $0["objectID"] as? String ?? "" }), [Fixtures.uri("Person/p6")])
        XCTAssertEqual(lines[3], "token,timestamp,author,contextName,bundleID,processID,inserts,updates,deletes")
        XCTAssertEqual(lines[4...].map { $0.split(separator: ",").enumerated().filter { [0, 2, 6, 7, 8].contains($0.offset) }.map(\.element).joined(separator: ",") },
                       ["1,importer,1,0,0", "2,cdinspect,0,1,0", "3,cdinspect,0,0,1"])
    }

    /// `Examples/doctor-a-store.sh`: doctor names the two defects the script makes, and the
    /// one row the next model version's migration would reject.
    func testDoctorAStoreScript() throws {
        let r = try shellScript("doctor-a-store.sh")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, r.stdout)
        XCTAssertTrue(lines.first?.hasPrefix("section,name,bytes,share,rows,severity,check") == true, r.stdout)
        XCTAssertTrue(lines.contains { $0.contains(",error,z_max,Person,NULL,3,Person/p8 Person/p9 Person/p10,") }, r.stdout)
        XCTAssertTrue(lines.contains { $0.contains(",error,required_null,Person,name,1,Person/p4,") }, r.stdout)
        XCTAssertEqual(lines.last, "migration_required Person birthday 1")
    }

    /// `Examples/before-and-after.sh`: the snapshot, the three changes "the test" made,
    /// nothing left after the restore; a seed from CSV, and a new store of the same objects.
    func testBeforeAndAfterScript() throws {
        let r = try shellScript("before-and-after.sh")
        XCTAssertEqual(r.status, 0, r.stderr)
        let u = { (short: String) in Fixtures.uri(short) }
        XCTAssertEqual(r.stdout.split(separator: "\n").map(String.init), [
            "name,objects,check", "clean,24,not run",
            "entity,change,objectID,key",
            "Car,deleted,\(u("Car/p3")),NULL",
            "Person,inserted,\(u("Person/p11")),NULL",
            "Person,updated,\(u("Person/p2")),age",
            "Person,updated,\(u("Person/p3")),cars",
            "entity,change,objectID,key,old,new",
            "would insert 2 Person", "dry run: nothing was written",
            "inserted 2 Person",
            "inserted 7 Car, 12 Person, 3 SportsCar, 4 Tag; 26 of the inserted are copies of another store's objects (their IDs name another Z_UUID)",
        ], r.stdout)
        // A difference is the answer, not a failure: exit 1 (the script's '|| true'), no error line.
        XCTAssertFalse(r.stderr.contains("error:"), r.stderr)
    }

    func testSeed001QueryGenerationScript() throws {
        let result = try run("seed-001-query-generations.cdi")
        XCTAssertEqual(result.status, 0, result.stderr)
        let u = { (short: String) in Fixtures.uri(short) }
        let steps = result.stdout.components(separatedBy: "\n")

        // A is unpinned, then pinned to g1, and reads dave0 and his car before B's changes.
        XCTAssertEqual(Array(steps[0...3]), ["unpinned", "g1", "objectID,name,age", "\(u("Person/p1")),dave0,43"])
        XCTAssertTrue(steps.contains("cars     = \(u("Car/p1"))"), result.stdout)
        // B finds the car, deletes it and saves, then renames all fifty people.
        XCTAssertTrue(result.stdout.contains("""
            objectID,name
            \(u("Car/p1")),Mustang
            saved into the store: 0 inserted, 1 updated, 1 deleted
            50
            0
            objectID,name
            \(u("Person/p24")),dave23
            objectID,name,owner
            \(u("Car/p1")),Mustang,\(u("Person/p1"))
            objectID = \(u("Car/p1"))
            name     = Mustang
            """), "B's count of dave23 is 0, while A still finds dave23 and dave0's car:\n\(result.stdout)")
        // A's save resolves the conflict with the batch update and leaves A unpinned.
        XCTAssertTrue(result.stdout.hasSuffix("""
            g1
            saved into the store: 0 inserted, 1 updated, 0 deleted
            unpinned
            objectID,name
            \(u("Person/p24")),NAME_23

            """), result.stdout)
        XCTAssertTrue(result.stderr.contains("conflict resolved by object-trump: \(u("Person/p24"))"), result.stderr)

        // The store as another process sees it afterwards.
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT ZNAME, Z_OPT FROM ZPERSON WHERE Z_PK = 24"), "NAME_23|3")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZNAME = 'DaveUpdate'"), "49")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR WHERE Z_PK = 1"), "0")
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok")
    }

    func testEverySeedHasAScript() throws {
        let seeds = try SharedFiles.require("seeds").path
        let scripts = try FileManager.default.contentsOfDirectory(atPath: Fixtures.packageRoot.appendingPathComponent("Examples").path)
        for seed in try FileManager.default.contentsOfDirectory(atPath: seeds) where seed.hasSuffix(".txt") {
            XCTAssertTrue(scripts.contains { $0.hasPrefix("seed-\(seed.prefix(3))-") && $0.hasSuffix(".cdi") }, "no example script for seed \(seed)")
        }
    }

    func testSeed000StableViewUntilAdvanced() throws {
        let result = try run("seed-000-query-generations-overview.cdi")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("journalMode                               = wal\n"), result.stdout)
        // The WAL check pin makes, and the generation it takes, on stderr at level 1 only.
        XCTAssertTrue(result.stderr.contains("CoreData: sql: PRAGMA journal_mode\n"), result.stderr)
        XCTAssertTrue(result.stderr.contains("CoreData: annotation: query generation g1 pinned"), result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "CoreData: sql: SELECT COUNT(*) FROM ZPERSON").count, 2,
                       "the log stops at 'sqldebug 0': \(result.stderr)")
        // Both pinned contexts count 50 after background's insert, main counts 51, and so
        // does each context once it advances.
        XCTAssertTrue(result.stdout.contains("saved into the store: 1 inserted, 0 updated, 0 deleted\n"), result.stdout)
        // The listing: the store's files' generations (the main file, background's save), then
        // the live one, reader's, whose snapshot is the state after that save.
        XCTAssertTrue(result.stdout.hasSuffix("50\n50\n51\n51\n51\n"
            + "token,contexts,snapshot,heldFrames,heldBytes,kind,firstFrame,lastFrame,pages,size,inserted,updated,deleted,author,time,contextName,note\n"
            + "w0,NULL,NULL,NULL,NULL,main-file,NULL,NULL,NULL,14,NULL,NULL,NULL,NULL,NULL,NULL,NULL\n"
            + "w1,NULL,NULL,NULL,NULL,commit,1,2,2,14,Person=1,,,NULL,NULL,NULL,NULL\n"
            + "g2,reader,frame 2,0,0,live,NULL,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,the state of w1\n"), result.stdout)
    }

    func testSeed002CoreDataStack() throws {
        let result = try run("seed-002-core-data-stack.cdi")
        XCTAssertEqual(result.status, 0, result.stderr)
        let p2 = Fixtures.uri("Person/p2"), p3 = Fixtures.uri("Person/p3")
        XCTAssertTrue(result.stdout.contains("\(p2),dave1,19\nsaved into the store: 0 inserted, 1 updated, 0 deleted\nobjectID,name,age\n\(p2),dave1,20\n"),
                      "main sees background's save: \(result.stdout)")
        XCTAssertTrue(result.stdout.hasSuffix("saved into context main: 0 inserted, 1 updated, 0 deleted\nchange,objectID,keys\nupdated,\(p3),name\n0\n"
                                              + "saved into the store: 0 inserted, 1 updated, 0 deleted\n1\nchange,objectID,keys\n"),
                      "the child's save reaches main, and main's the store: \(result.stdout)")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT ZNAME || ZAGE FROM ZPERSON WHERE Z_PK IN (2, 3) ORDER BY Z_PK"), "dave120\nAnn73")
    }

    func testSeed003ReferencesAndRefreshing() throws {
        let result = try run("seed-003-references-and-refreshing.cdi")
        XCTAssertEqual(result.status, 0, result.stderr)
        let p1 = Fixtures.uri("Person/p1"), t1 = Fixtures.uri("Tag/p1")
        // Held weakly, fetching the tags lets dave0 go; retained, he stays.
        XCTAssertTrue(result.stdout.contains("objectID,state\n\(p1),realized\nobjectID,name\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("objectID,state\n\(t1),fault\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("objectID,state\n\(p1),realized\n\(t1),fault\n"), result.stdout)
        // Old values until a refresh; refresh --merge puts the store's age under the context's name.
        XCTAssertTrue(result.stdout.contains("saved into the store: 0 inserted, 1 updated, 0 deleted\nobjectID,name,age\n\(p1),dave0,43\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("\(p1),Dave,50\nchange,objectID,keys\nupdated,\(p1),name\n"), result.stdout)
        // Without merge the change is gone and the row is read again.
        let last = result.stdout.components(separatedBy: "change,objectID,keys\n").last ?? ""
        XCTAssertTrue(last.hasPrefix("objectID = \(p1)\nage      = 50\n"), result.stdout)
        XCTAssertTrue(last.contains("\nname     = dave0\n"), result.stdout)
    }

    func testSeed004InaccessibleFaults() throws {
        let result = try run("seed-004-inaccessible-faults.cdi")
        let car = Fixtures.uri("SportsCar/p2")
        XCTAssertEqual(result.status, 1, "the last line fails by design: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("cdinspect: warning: \(car) is marked deleted: its row is gone from the store\n"), result.stderr)
        XCTAssertTrue(result.stdout.contains("objectID = \(car)\nname     = NULL\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("objectID,state\n\(car),deleted\n"), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("objectID,state\n\(car),fault\n"), result.stdout)
        XCTAssertTrue(result.stderr.hasSuffix("cdinspect: error: line 32: CoreData could not fulfill a fault for '\(car)': its row is gone from the store"
                                              + " (turn shouldDeleteInaccessibleFaults on to have such objects marked deleted instead)\n"), result.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR WHERE Z_PK = 2"), "0")
    }
}

import Foundation
import XCTest

/// The seed scripts in Examples/ other than 001 (ExampleScriptTests), each run as its
/// comments say on a fresh example store, with CSV as the default format.
final class SeedScriptTests: XCTestCase {
    func run(_ name: String, store: inout String) throws -> CLI.Result {
        let folder = try Fixtures.temporaryDirectory(self)
        store = try Fixtures.exampleStore(in: folder, people: 50).path
        let script = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Examples/\(name)"), encoding: .utf8)
        return try CLI.run([store, "--format", "csv"], stdin: script)
    }

    func testEverySeedHasAScript() throws {
        let seeds = Fixtures.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/seeds").path
        let scripts = try FileManager.default.contentsOfDirectory(atPath: Fixtures.packageRoot.appendingPathComponent("Examples").path)
        for seed in try FileManager.default.contentsOfDirectory(atPath: seeds) where seed.hasSuffix(".txt") {
            XCTAssertTrue(scripts.contains { $0.hasPrefix("seed-\(seed.prefix(3))-") && $0.hasSuffix(".cdi") }, "no example script for seed \(seed)")
        }
    }

    func testSeed000StableViewUntilAdvanced() throws {
        var store = ""
        let result = try run("seed-000-query-generations-overview.cdi", store: &store)
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
        XCTAssertTrue(result.stdout.hasSuffix("50\n50\n51\n51\n51\ntoken,contexts,snapshot,heldFrames,heldBytes\ng2,reader,frame 2,0,0\n"),
                      result.stdout)
    }

    func testSeed002CoreDataStack() throws {
        var store = ""
        let result = try run("seed-002-core-data-stack.cdi", store: &store)
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
        var store = ""
        let result = try run("seed-003-references-and-refreshing.cdi", store: &store)
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
        var store = ""
        let result = try run("seed-004-inaccessible-faults.cdi", store: &store)
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

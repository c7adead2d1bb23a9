import Foundation
import XCTest

/// batch-update, batch-delete and merge through the built binary, on example stores the
/// tests write and on a copy of a Core Data fixture with derived attributes.
final class BatchRequestTests: ExampleStoreTestCase {
    func sql(_ query: String) throws -> String { try SQLiteShell.read(store, query) }

    func testResultTypesAndZOPTOnExactlyTheChangedRows() throws {
        let before = try sql("SELECT group_concat(Z_PK || ':' || Z_OPT || ':' || ZAGE, ' ') FROM ZPERSON ORDER BY Z_PK")
        var r = try CLI.run(["batch-update", store, "Person", "--set", "age=age+1", "--where", "age >= 73", "--result", "count"])
        XCTAssertEqual(r.stdout, "9\n", r.stderr)
        r = try CLI.run(["batch-update", store, "Person", "--set", "age=age+1", "--where", "age >= 77", "--result", "ids", "--format", "csv"])
        XCTAssertEqual(r.stdout, "objectID\n\(Fixtures.uri("Person/p26"))\n\(Fixtures.uri("Person/p30"))\n\(Fixtures.uri("Person/p42"))\n", r.stderr)
        r = try CLI.run(["batch-update", store, "Person", "--set", "score=nil", "--set", "homepage=\"x\"", "--where", "name == \"dave9\""])
        XCTAssertEqual(r.stdout, "true\n", r.stderr)
        r = try CLI.run(["batch-update", store, "Person", "--set", "isActive=NO", "--where", "name == \"nobody\"", "--result", "count", "--format", "json"])
        XCTAssertEqual(r.stdout, "{\"count\": 0}\n", r.stderr)

        // Every row: Z_OPT is up by one for each batch that changed it, and by nothing else.
        let old = Dictionary(uniqueKeysWithValues: before.split(separator: " ").map { row -> (Int, (Int, Int)) in
            let f = row.split(separator: ":").map { Int($0)! }
            return (f[0], (f[1], f[2]))
        })
        for row in try sql("SELECT Z_PK || ':' || Z_OPT || ':' || ZAGE FROM ZPERSON").split(separator: "\n") {
            let f = row.split(separator: ":").map { Int($0)! }
            let (opt, age) = old[f[0]]!
            let bumps = (age >= 73 ? 1 : 0) + (age >= 76 ? 1 : 0) + (f[0] == 10 ? 1 : 0)
            XCTAssertEqual(f[1], opt + bumps, "Person/p\(f[0]) Z_OPT")
            XCTAssertEqual(f[2], age + (age >= 73 ? 1 : 0) + (age >= 76 ? 1 : 0), "Person/p\(f[0]) age")
        }
        XCTAssertEqual(try sql("SELECT ZSCORE IS NULL, ZHOMEPAGE FROM ZPERSON WHERE Z_PK = 10"), "1|x")
    }

    /// A one-shot command closes its connections itself and then exits without releasing
    /// them, the writer last: the last connection to close is the one SQLite checkpoints
    /// the change through, so the store is left whole in its file, with no `-wal` or `-shm`
    /// beside it, as it was when the process released its connections.
    func testAOneShotWriteLeavesTheStoreCheckpointed() throws {
        XCTAssertEqual(try sql("PRAGMA journal_mode"), "wal")
        let r = try CLI.run(["batch-update", store, "Person", "--set", "age=age+1", "--where", "name == \"dave3\"", "--result", "count"])
        XCTAssertEqual(r.stdout, "1\n", r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-wal"), "the -wal is left beside the store")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-shm"), "the -shm is left beside the store")
        XCTAssertEqual(try sql("SELECT Z_OPT FROM ZPERSON WHERE ZNAME = 'dave3'"), "2")
    }

    func testASubEntityBatchLeavesItsSiblingsAndParentRowsAlone() throws {
        let cars = try sql("SELECT group_concat(Z_ENT || ':' || Z_OPT || ':' || ifnull(ZTOPSPEED, ''), ' ') FROM ZCAR")
        let r = try CLI.run(["batch-update", store, "SportsCar", "--set", "topSpeed=300", "--result", "count"])
        XCTAssertEqual(r.stdout, try sql("SELECT count(*) FROM ZCAR WHERE Z_ENT = 2") + "\n", r.stderr)
        XCTAssertEqual(try sql("SELECT count(*) FROM ZCAR WHERE Z_ENT = 2 AND (ZTOPSPEED != 300 OR Z_OPT != 2)"), "0")
        XCTAssertEqual(try sql("SELECT group_concat(Z_ENT || ':' || Z_OPT || ':' || ifnull(ZTOPSPEED, ''), ' ') FROM ZCAR WHERE Z_ENT = 1"),
                       cars.split(separator: " ").filter { $0.hasPrefix("1:") }.joined(separator: " "), "Car rows are untouched")
        // The parent entity takes its sub-entities' rows too; a relationship key path in the
        // predicate goes through a subquery.
        let all = try CLI.run(["batch-update", store, "Car", "--set", "year=year+0", "--where", "owner.name BEGINSWITH \"dave1\"", "--result", "count"])
        XCTAssertEqual(all.stdout, "11\n", all.stderr)
    }

    func testContextsSeeABatchUpdateOnlyAfterRefreshOrMerge() throws {
        let session = try SessionDriver(store: store)
        session.run("context new other")
        let names = { (context: String) in
            session.run("fetch Person --context \(context) --where 'homepage ENDSWITH \"~dave0\"' --keys name --format csv").out
        }
        XCTAssertEqual(names("main"), "objectID,name\n\(Fixtures.uri("Person/p1")),dave0\n")
        XCTAssertEqual(names("other"), names("main"))
        // Realized objects (a fault printed by fetch is not fired; 'get' fires it).
        session.run("get Person/p1\nget Person/p1 --context other")
        XCTAssertEqual(session.run("batch-update Person --set name=\"Renamed\" --where 'homepage ENDSWITH \"~dave0\"' --result count").out, "1\n")
        XCTAssertEqual(names("main"), "objectID,name\n\(Fixtures.uri("Person/p1")),dave0\n", "registered objects keep their values")
        XCTAssertEqual(session.run("merge").out, "merged 1 updated and 0 deleted object into main\n")
        XCTAssertEqual(names("main"), "objectID,name\n\(Fixtures.uri("Person/p1")),Renamed\n")
        XCTAssertEqual(names("other"), "objectID,name\n\(Fixtures.uri("Person/p1")),dave0\n")
        session.run("refresh Person/p1 --context other")
        XCTAssertEqual(names("other"), "objectID,name\n\(Fixtures.uri("Person/p1")),Renamed\n")

        // A batch delete: merging removes the deleted objects (the car went by cascade).
        session.run("get Car/p1 --context other")
        XCTAssertEqual(session.run("batch-delete Person --where 'homepage ENDSWITH \"~dave0\"' --result ids --format csv").out,
                       "objectID\n\(Fixtures.uri("Person/p1"))\n")
        XCTAssertEqual(session.run("merge --into other --into main").out, "merged 0 updated and 2 deleted objects into other, main\n")
        let gone = session.run("get Car/p1 --context other\nget Person/p1")
        XCTAssertTrue(gone.err.contains("no object \(Fixtures.uri("Car/p1")) in the store"), gone.err)
        XCTAssertTrue(gone.err.contains("no object \(Fixtures.uri("Person/p1")) in the store"), gone.err)
        XCTAssertEqual(session.run("merge --ids Person/p2 --into other").out, "merged 1 updated and 0 deleted object into other\n")
        XCTAssertTrue(session.run("merge --ids Nope/p1").err.contains("Nope"))
        XCTAssertEqual(try session.finish(), 1)
    }

    func testBatchDeleteAppliesCascadeDenyAndNullify() throws {
        // Tag.people is deny: a tag in use cannot go, and nothing changes.
        let joins = try sql("SELECT count(*) FROM Z_3TAGS")
        var r = try CLI.run(["batch-delete", store, "Tag", "--where", "name == \"work\""])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("Tag/p3: its relationship 'people' has the deny delete rule"), r.stderr)
        XCTAssertEqual(try sql("SELECT count(*) FROM ZTAG"), "4")
        XCTAssertEqual(try sql("SELECT count(*) FROM Z_3TAGS"), joins)

        // Person.cars cascades, Person.tags nullifies (the join rows go, the tags stay).
        let tagged = try sql("SELECT count(*) FROM Z_3TAGS WHERE Z_3PEOPLE IN (SELECT Z_PK FROM ZPERSON WHERE ZNAME LIKE 'dave1%')")
        r = try CLI.run(["batch-delete", store, "Person", "--where", "name BEGINSWITH \"dave1\"", "--result", "count"])
        XCTAssertEqual(r.stdout, "11\n", r.stderr)
        XCTAssertEqual(try sql("SELECT count(*) FROM ZPERSON"), "39")
        XCTAssertEqual(try sql("SELECT count(*) FROM ZCAR"), "39", "each deleted person's car went with them")
        XCTAssertEqual(try sql("SELECT count(*) FROM Z_3TAGS"), String(Int(joins)! - Int(tagged)!))
        XCTAssertEqual(try sql("SELECT count(*) FROM ZTAG"), "4")

        // Deleting cars nullifies their owners' side: the people stay, without the car.
        r = try CLI.run(["batch-delete", store, "Car", "--result", "count"])
        XCTAssertEqual(r.stdout, "39\n", r.stderr)
        XCTAssertEqual(try sql("SELECT count(*) FROM ZPERSON"), "39")
        // Now no person has a car, and deleting a tag's people lets the tag go.
        r = try CLI.run(["batch-delete", store, "Person"])
        XCTAssertEqual(r.stdout, "true\n", r.stderr)
        r = try CLI.run(["batch-delete", store, "Tag", "--result", "count"])
        XCTAssertEqual(r.stdout, "4\n", r.stderr)
        XCTAssertEqual(try sql("PRAGMA integrity_check"), "ok")
    }

    func testBatchRequestsOnACoreDataStoreWithDerivedAttributes() throws {
        let copy = try Fixtures.copy("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite", into: folder).path
        let wrongCounts = "SELECT count(*) FROM ZBOOK b WHERE ZPAGESCOUNT != (SELECT count(*) FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK)"
        XCTAssertEqual(try SQLiteShell.read(copy, wrongCounts), "0")
        var r = try CLI.run(["batch-update", copy, "Book", "--set", "title=\"Renamed\"", "--set", "price=price*2", "--result", "count"])
        XCTAssertEqual(r.stdout, "52\n", r.stderr)
        r = try CLI.run(["batch-update", copy, "Page", "--set", "isBookmarked=YES", "--where", "number > 10", "--result", "count"])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try CLI.run(["batch-update", copy, "Book", "--set", "pagesCount=3"])
        XCTAssertTrue(r.stderr.contains("Book.pagesCount cannot be set: it is derived"), r.stderr)
        // Deleting pages fires Core Data's own triggers, which keep pagesCount right.
        let pages = Int(try SQLiteShell.read(copy, "SELECT count(*) FROM ZPAGE WHERE ZNUMBER > 50"))!
        r = try CLI.run(["batch-delete", copy, "Page", "--where", "number > 50", "--result", "count"])
        XCTAssertEqual(r.stdout, "\(pages)\n", r.stderr)
        XCTAssertEqual(try SQLiteShell.read(copy, wrongCounts), "0")
        XCTAssertEqual(try SQLiteShell.read(copy, "SELECT count(*) FROM ZBOOK WHERE ZTITLE != 'Renamed'"), "0")
        XCTAssertEqual(try SQLiteShell.read(copy, "PRAGMA integrity_check"), "ok")
    }

    func testBadBatchRequestsChangeNothing() throws {
        let before = try sql("SELECT sum(Z_OPT) FROM ZPERSON")
        for (arguments, message) in [
            (["Person"], "needs at least one --set"),
            (["Person", "--set", "age=\"old\""], "Person.age: expects an integer"),
            (["Person", "--set", "age=name"], "name does not give a number"),
            (["Person", "--set", "cars=nil"], "sets attributes, not relationships"),
            (["Person", "--set", "age=1", "--set", "age=2"], "Person.age is set twice"),
            (["Car", "--set", "year=owner.age"], "may use only Car's own attributes"),
            (["Person", "--set", "age=1", "--where", "age >"], "predicate syntax error at column 6"),
            (["Person", "--set", "age=1", "--readonly"], "is open read-only"),
        ] {
            let r = try CLI.run(["batch-update", store] + arguments)
            XCTAssertEqual(r.status, 1, "\(arguments)")
            XCTAssertTrue(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        XCTAssertEqual(try sql("SELECT sum(Z_OPT) FROM ZPERSON"), before)
    }
}

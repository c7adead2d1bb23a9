import Foundation
import XCTest

/// Contexts, objects, faults and saving, each as a script through the built binary on an
/// example store the test writes. Other processes' writes come from the sqlite3 shell.
final class ContextTests: ExampleStoreTestCase {
    func script(_ lines: String, _ extra: [String] = []) throws -> CLI.Result {
        try CLI.run([store] + extra, stdin: lines)
    }

    func sql(_ query: String) throws -> String { try SQLiteShell.read(store, query) }

    func testChildSaveReachesOnlyItsParentAndTheParentsSaveReachesTheStore() throws {
        let session = try SessionDriver(store: store)
        var r = session.run("""
            context new editor --parent main
            update Person/p1 name=kid --context editor
            count Person where name == "kid"
            save --context editor
            """)
        XCTAssertEqual(r.out, "0\nsaved into context main: 0 inserted, 1 updated, 0 deleted\n", r.err)
        XCTAssertEqual(try sql("SELECT ZNAME, Z_OPT FROM ZPERSON WHERE Z_PK = 1"), "dave0|1", "a child's save must not reach the store")
        r = session.run("""
            count Person where name == "kid"
            changes --format csv
            count Person --where 'name == "kid"' --context background
            """)
        XCTAssertEqual(r.out, "1\nchange,objectID,keys\nupdated,\(uri("Person/p1")),name\n0\n", r.err)
        r = session.run("save\ncount Person --where 'name == \"kid\"' --context background\ncount Person --where 'name == \"kid\"' --context editor")
        XCTAssertEqual(r.out, "saved into the store: 0 inserted, 1 updated, 0 deleted\n1\n1\n", r.err)
        XCTAssertEqual(try sql("SELECT ZNAME, Z_OPT FROM ZPERSON WHERE Z_PK = 1"), "kid|2")
        XCTAssertEqual(try session.finish(), 0)
    }

    /// The same person edited in two root contexts that do not merge each other's saves:
    /// `a` renames and ages them and saves first, then `b` renames them and sets a score.
    func testEachMergePolicyResolvesTheConflictAsDocumented() throws {
        let expectations: [(policy: String, row: String, status: Int32)] = [
            ("error", "fromA|1|45.15|2", 1),          // the save fails; the store keeps a's save
            ("store-trump", "fromA|1|2.5|3", 0),      // the store wins name; b's score is saved
            ("object-trump", "fromB|1|2.5|3", 0),     // b wins name; a's age is kept
            ("overwrite", "fromB|43|2.5|3", 0),       // b's whole object, a's age undone
            ("rollback", "fromA|1|45.15|2", 0),       // b's changes are thrown away
        ]
        for expected in expectations {
            let path = folder.appendingPathComponent("\(expected.policy).sqlite").path
            try FileManager.default.copyItem(atPath: store, toPath: path)
            let result = try CLI.run([path, "--keep-going"], stdin: """
                context new a --merge-policy \(expected.policy)
                context new b --merge-policy \(expected.policy)
                get Person/p1 --context a --format csv
                get Person/p1 --context b --format csv
                update Person/p1 name=fromA age=1 --context a
                update Person/p1 name=fromB score=2.5 --context b
                save --context a
                save --context b
                changes --context b --format csv
                """)
            XCTAssertEqual(result.status, expected.status, "\(expected.policy): \(result.stderr)")
            XCTAssertEqual(try SQLiteShell.read(path, "SELECT ZNAME, ZAGE, ZSCORE, Z_OPT FROM ZPERSON WHERE Z_PK = 1"), expected.row, expected.policy)
            let pending = result.stdout.components(separatedBy: "change,objectID,keys\n").last ?? ""
            if expected.policy == "error" {
                XCTAssertTrue(result.stderr.contains("save failed with 1 merge conflict"), result.stderr)
                XCTAssertTrue(result.stderr.contains("store changed age, name, this context changed name, score"), result.stderr)
                XCTAssertEqual(pending, "updated,\(uri("Person/p1")),\"name,score\"\n", "b's changes stay pending")
            } else {
                XCTAssertTrue(result.stderr.contains("conflict resolved by \(expected.policy)"), result.stderr)
                XCTAssertEqual(pending, "", "\(expected.policy): nothing left to save")
            }
        }
    }

    /// Programming Guide, "Ensuring Data Is Up to Date": a new fetch does not change realized
    /// objects; refresh without merging takes the store's values, with merging keeps the
    /// context's own changes on top of them.
    func testRefetchKeepsRealizedValuesAndRefreshUpdatesThem() throws {
        let session = try SessionDriver(store: store)
        session.run("get Person/p1\nupdate Person/p1 age=5\nget Person/p2")
        // Another process changes both people.
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZNAME = 'Fiona', Z_OPT = Z_OPT + 1 WHERE Z_PK IN (1, 2)")
        var r = session.run("fetch Person --keys name,age --limit 2 --format csv")
        XCTAssertEqual(r.out, "objectID,name,age\n\(uri("Person/p1")),dave0,5\n\(uri("Person/p2")),dave1,19\n", r.err)
        r = session.run("refresh Person/p1 --merge\nrefresh Person/p2\nfetch Person --keys name,age --limit 2 --format csv")
        XCTAssertEqual(r.out, "objectID,name,age\n\(uri("Person/p1")),Fiona,5\n\(uri("Person/p2")),Fiona,19\n", r.err)
        // --refresh asks the fetch itself to take the store's values for unchanged objects.
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZNAME = 'Jones', Z_OPT = Z_OPT + 1 WHERE Z_PK = 2")
        r = session.run("get Person/p2 --format csv\nfetch Person --keys name --limit 1 --offset 1 --format csv\nfetch Person --keys name --limit 1 --offset 1 --refresh --format csv")
        XCTAssertTrue(r.out.hasSuffix("objectID,name\n\(uri("Person/p2")),Fiona\nobjectID,name\n\(uri("Person/p2")),Jones\n"), r.out)
        // Refresh without merging throws p1's pending change away.
        r = session.run("refresh Person/p1\nchanges --format csv\nfetch Person --keys name,age --limit 1 --format csv")
        XCTAssertEqual(r.out, "change,objectID,keys\nobjectID,name,age\n\(uri("Person/p1")),Fiona,43\n", r.err)
        XCTAssertEqual(try session.finish(), 0)
    }

    /// A fault whose row another process deleted: marked deleted with
    /// shouldDeleteInaccessibleFaults on (the default), an error with it off.
    func testInaccessibleFaultWithTheFlagOnAndOff() throws {
        let session = try SessionDriver(store: store)
        var r = session.run("context set retains-registered-objects yes\nfetch Person --as ids --limit 5")
        XCTAssertEqual(r.out.components(separatedBy: "\n").filter { $0.contains("Person/p") }.count, 5, r.err)
        try SQLiteShell.run(store, "DELETE FROM ZPERSON WHERE Z_PK IN (3, 4)")
        r = session.run("get Person/p3 --format json\nregistered --format csv")
        XCTAssertTrue(r.err.contains("Person/p3 is marked deleted"), r.err)
        XCTAssertTrue(r.out.contains("\(uri("Person/p3")),deleted\n"), r.out)
        XCTAssertTrue(r.out.contains("\(uri("Person/p4")),fault\n"), r.out)
        r = session.run("context set should-delete-inaccessible-faults no\nget Person/p4")
        XCTAssertEqual(r.out, "")
        XCTAssertTrue(r.err.contains("CoreData could not fulfill a fault for '\(uri("Person/p4"))'"), r.err)
        // A relationship fault to a deleted row: p1's car is deleted behind the context's back.
        try SQLiteShell.run(store, "DELETE FROM ZCAR WHERE Z_PK = 1")
        r = session.run("get Person/p1 --format csv\nget Car/p1")
        XCTAssertTrue(r.out.contains("dave0"), r.out)
        XCTAssertFalse(r.out.contains("/Car/p1"), "the car is gone from p1's cars: \(r.out)")
        XCTAssertTrue(r.err.contains("no object \(uri("Car/p1")) in the store"), r.err)
        XCTAssertEqual(try session.finish(), 1)
    }

    func testUndoAndRedo() throws {
        let result = try script("""
            update Person/p1 name=first
            insert Tag name=new
            changes --format csv
            undo
            changes --format csv
            undo
            changes --format csv
            redo
            fetch Person --keys name --limit 1 --format csv
            redo
            changes --format csv
            undo
            update Person/p2 age=7
            redo
            """)
        let outputs = result.stdout.components(separatedBy: "change,objectID,keys\n")
        XCTAssertEqual(outputs.count, 5, result.stdout)
        XCTAssertTrue(outputs[1].contains("inserted,x-coredata:///Tag/t") && outputs[1].contains("updated,\(uri("Person/p1")),name"), outputs[1])
        XCTAssertEqual(outputs[2], "updated,\(uri("Person/p1")),name\n")
        XCTAssertTrue(outputs[3].hasPrefix("objectID,name\n\(uri("Person/p1")),first\n"), outputs[3])
        XCTAssertTrue(outputs[4].contains("inserted,x-coredata:///Tag/t"), outputs[4])
        XCTAssertEqual(result.status, 1, "a new change after undo clears the redo stack")
        XCTAssertTrue(result.stderr.contains("line 14: nothing to redo in context 'main'"), result.stderr)

        let off = try script("context set undo off\nupdate Person/p1 name=x\nundo")
        XCTAssertEqual(off.status, 1)
        XCTAssertTrue(off.stderr.contains("line 3: undo is off for context 'main'"), off.stderr)
    }

    /// Tag.people is deny; Person.cars is cascade; Person.tags and Car.owner nullify.
    func testDeleteRules() throws {
        let tagRows = try sql("SELECT count(*) FROM Z_3TAGS WHERE Z_3PEOPLE = 1")
        let denied = try script("delete Tag/p1\nchanges --format csv")
        XCTAssertEqual(denied.status, 1)
        XCTAssertTrue(denied.stderr.contains("cannot delete \(uri("Tag/p1")): its relationship 'people' has the deny delete rule"), denied.stderr)

        let result = try script("""
            delete Person/p1
            changes --format csv
            get Tag/p1 --format json
            save
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("deleted,\(uri("Car/p1")),NULL"), "cascade: \(result.stdout)")
        XCTAssertTrue(result.stdout.contains("deleted,\(uri("Person/p1")),NULL"), result.stdout)
        XCTAssertTrue(result.stdout.contains("updated,\(uri("Tag/p1")),people"), "nullify: \(result.stdout)")
        XCTAssertFalse(result.stdout.contains("\"people\": [\"\(uri("Person/p1"))"), result.stdout)
        XCTAssertNotEqual(tagRows, "0")
        XCTAssertEqual(try sql("SELECT (SELECT count(*) FROM ZPERSON WHERE Z_PK = 1), (SELECT count(*) FROM ZCAR WHERE Z_PK = 1), (SELECT count(*) FROM Z_3TAGS WHERE Z_3PEOPLE = 1)"), "0|0|0")
    }

    /// Several saves, then the checks a Core Data store must pass, and a fresh session
    /// reading back exactly what was saved.
    func testSavedStoreStaysAValidCoreDataStore() throws {
        let result = try script("""
            insert Person name=Ann id=11111111-2222-3333-4444-555555555555 age=31 birthday="2020-02-29T12:00:00Z" tags={Tag/p1,Tag/p3}
            insert SportsCar plate=ZZ-1 name="Fast one" topSpeed=300 owner=Person/p2
            update Person/p1 name="O'Brien \\"quoted\\"" score=1.25
            save
            update Person/p1 age=44 tags={Tag/p4}
            update Tag/p2 name=renamed
            delete Car/p3
            save
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try sql("PRAGMA integrity_check"), "ok")
        XCTAssertEqual(try sql("SELECT (SELECT max(Z_PK) FROM ZCAR) <= (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Car'), "
                               + "(SELECT max(Z_PK) FROM ZPERSON) <= (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'), "
                               + "(SELECT max(Z_PK) FROM ZTAG) <= (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag')"), "1|1|1")
        XCTAssertEqual(try sql("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_SUPER = 0 ORDER BY Z_ENT"), "Car|51\nPerson|51\nTag|4")
        XCTAssertEqual(try sql("SELECT Z_OPT FROM ZPERSON WHERE Z_PK = 1"), "3", "two saves of p1: 1 → 3")
        XCTAssertEqual(try sql("SELECT Z_OPT FROM ZPERSON WHERE Z_PK = 3"), "2", "p3 lost its car in one save")
        XCTAssertEqual(try sql("SELECT Z_OPT FROM ZPERSON WHERE Z_PK = 5"), "1", "p5 was never saved")
        XCTAssertEqual(try sql("SELECT Z_OPT, Z_ENT, ZOWNER FROM ZCAR WHERE Z_PK = 51"), "1|2|2")
        XCTAssertEqual(try sql("SELECT Z_4TAGS FROM Z_3TAGS WHERE Z_3PEOPLE = 51 ORDER BY 1"), "1\n3")
        XCTAssertEqual(try sql("SELECT Z_4TAGS FROM Z_3TAGS WHERE Z_3PEOPLE = 1 ORDER BY 1"), "4")
        XCTAssertEqual(try sql("SELECT count(*) FROM ZCAR WHERE Z_PK = 3"), "0")
        // Join tables agree with both sides, read back by a fresh session.
        let tag4 = try CLI.json(["fetch", store, "Tag", "--where", "SELF == 'Tag/p4'", "--format", "json"]) as? [[String: Any]]
        XCTAssertEqual(tag4?.count, 1)
        let people = try XCTUnwrap(try script("get Tag/p4 --format json").stdout.data(using: .utf8))
        let tag = try XCTUnwrap((try JSONSerialization.jsonObject(with: people) as? [[String: Any]])?.first)
        XCTAssertTrue((tag["people"] as? [String] ?? []).contains(uri("Person/p1")), "\(tag)")
        let ann = try XCTUnwrap((try CLI.json(["fetch", store, "Person", "--where", "name == 'Ann'", "--format", "json"]) as? [[String: Any]])?.first)
        XCTAssertEqual(ann["objectID"] as? String, uri("Person/p51"))
        XCTAssertEqual(ann["age"] as? Int, 31)
        XCTAssertEqual(ann["birthday"] as? String, "2020-02-29T12:00:00.000Z")
        XCTAssertEqual(ann["id"] as? String, "11111111-2222-3333-4444-555555555555")
        XCTAssertEqual(ann["isActive"] as? Bool, true, "the model's default")
        let p1 = try XCTUnwrap((try CLI.json(["fetch", store, "Person", "--where", "SELF == 'Person/p1'", "--format", "json"]) as? [[String: Any]])?.first)
        XCTAssertEqual(p1["name"] as? String, "O'Brien \"quoted\"")
        XCTAssertEqual(p1["score"] as? Double, 1.25)
        XCTAssertEqual(p1["age"] as? Int, 44)
        let car = try XCTUnwrap(try script("get Car/p51 --format json").stdout.data(using: .utf8))
        let carObject = try XCTUnwrap((try JSONSerialization.jsonObject(with: car) as? [[String: Any]])?.first)
        XCTAssertEqual(carObject["objectID"] as? String, uri("SportsCar/p51"))
        XCTAssertEqual(carObject["owner"] as? String, uri("Person/p2"))
        let owner = try XCTUnwrap(try script("get Person/p2 --format json").stdout.data(using: .utf8))
        let ownerObject = try XCTUnwrap((try JSONSerialization.jsonObject(with: owner) as? [[String: Any]])?.first)
        XCTAssertEqual(ownerObject["cars"] as? [String], [uri("SportsCar/p2"), uri("SportsCar/p51")])
    }

    /// A save that fails leaves the store byte for byte as it was and the changes pending:
    /// a validation failure, and a store another process holds locked.
    func testFailedSavesLoseNothing() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let invalid = try script("insert Person age=3\nupdate Person/p1 name=kept\nsave\nchanges --format csv", ["--keep-going"])
        XCTAssertEqual(invalid.status, 1)
        XCTAssertTrue(invalid.stderr.contains("validation failed, nothing was saved"), invalid.stderr)
        XCTAssertTrue(invalid.stderr.contains("name is required") && invalid.stderr.contains("id is required"), invalid.stderr)
        XCTAssertTrue(invalid.stdout.contains("updated,\(uri("Person/p1")),name"), invalid.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)

        let session = try SessionDriver(store: store)
        session.run("update Person/p1 name=kept\ninsert Tag name=extra")
        let lock = try StoreLock(store)
        var r = session.run("save\nchanges --format csv")
        XCTAssertTrue(r.err.contains("is locked by another process"), r.err)
        XCTAssertTrue(r.out.contains("updated,\(uri("Person/p1")),name") && r.out.contains("inserted,x-coredata:///Tag/t"), r.out)
        try lock.release()
        XCTAssertEqual(try sql("SELECT ZNAME FROM ZPERSON WHERE Z_PK = 1"), "dave0")
        r = session.run("save")
        XCTAssertEqual(r.out, "saved into the store: 1 inserted, 1 updated, 0 deleted\n  inserted \(uri("Tag/p5"))\n", r.err)
        XCTAssertEqual(try sql("SELECT ZNAME FROM ZPERSON WHERE Z_PK = 1"), "kept")
        XCTAssertEqual(try session.finish(), 1)
    }

    func testContextCommands() throws {
        let result = try script("""
            context new editor --parent main --merge-policy object-trump
            context use editor
            update Person/p1 age=2
            context list --format csv
            context drop main
            context drop editor
            context use main
            context drop editor
            context list --format csv
            context set staleness-interval soon
            get Person/p1 --context nowhere
            """, ["--keep-going"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.hasPrefix("""
            name,parent,current,pin,registered,changes,mergePolicy
            main,NULL,NO,unpinned,0,0,error
            background,NULL,NO,unpinned,0,0,error
            editor,main,YES,unpinned,1,1,object-trump
            name,parent,current,pin,registered,changes,mergePolicy
            main,NULL,YES,unpinned,0,0,error
            background,NULL,NO,unpinned,0,0,error

            """), result.stdout)
        XCTAssertTrue(result.stderr.contains("line 5: cannot drop context 'main': context 'editor' is its child"), result.stderr)
        XCTAssertTrue(result.stderr.contains("line 6: cannot drop context 'editor': it is the current context"), result.stderr)
        XCTAssertTrue(result.stderr.contains("line 10: staleness-interval takes seconds, not 'soon'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("line 11: no context named 'nowhere'"), result.stderr)
    }
}

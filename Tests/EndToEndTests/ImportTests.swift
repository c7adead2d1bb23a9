import Foundation
import XCTest

/// `import`: objects from export's document, a JSON array or CSV, written as a context save
/// writes them; rejected objects named; nothing written unless asked; hostile files refused
/// with one line and the store untouched.
final class ImportTests: ExampleStoreTestCase {
    private func cdinspect(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        try CLI.run(arguments, timeout: 300)
    }

    @discardableResult
    private func succeeds(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try cdinspect(arguments)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        return result.stdout
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// The document with every store UUID taken out: what must survive a round trip.
    private func normalized(_ document: String) -> String {
        document.replacingOccurrences(of: #""storeUUID": "[^"]*""#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #"x-coredata://[^/]*/"#, with: "x-coredata://U/", options: .regularExpression)
    }

    /// export → model export → create → import → export, on `source`.
    private func roundTrip(_ source: String, in work: URL, file: StaticString = #filePath, line: UInt = #line) throws -> (before: String, after: String, store: String) {
        let document = try succeeds(["export", source], file: file, line: line)
        let documentFile = work.appendingPathComponent("document.json")
        try Data(document.utf8).write(to: documentFile)
        try succeeds(["model", source, "export", work.appendingPathComponent("model").path], file: file, line: line)
        let model = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("model").path)
            .first { $0.hasSuffix(".xcdatamodeld") }, file: file, line: line)
        let created = work.appendingPathComponent("created.sqlite").path
        let history = try SQLiteShell.read(source, "SELECT count(*) FROM sqlite_master WHERE name = 'ATRANSACTION'") == "1"
        try succeeds(["create", created, "--model", work.appendingPathComponent("model/\(model)").path] + (history ? ["--history"] : []),
                     file: file, line: line)
        try succeeds(["import", created, documentFile.path], file: file, line: line)
        return (normalized(document), normalized(try succeeds(["export", created], file: file, line: line)), created)
    }

    func testExportCreateImportExportGivesTheSameDocument() throws {
        let work = folder.appendingPathComponent("round")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        // The example store as the generator writes it with persistent history.
        let store = try Fixtures.exampleStore(in: work, history: true).path
        let (before, after, created) = try roundTrip(store, in: work)
        XCTAssertEqual(after, before)
        // The rows are the example's own, as Core Data wrote them, and the key counters too.
        for table in ["ZPERSON", "ZCAR", "ZTAG", "Z_3TAGS", "Z_PRIMARYKEY WHERE Z_ENT < 16000"] {
            XCTAssertEqual(try SQLiteShell.read(created, "SELECT * FROM \(table) ORDER BY 1, 2"),
                           try SQLiteShell.read(store, "SELECT * FROM \(table) ORDER BY 1, 2"), table)
        }
        // One history transaction by cdinspect-import, an insert per object.
        let transactions = try XCTUnwrap(CLI.json(["history", created, "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(transactions.count, 1)
        XCTAssertEqual(transactions.first?["author"] as? String, "cdinspect-import")
        XCTAssertEqual(transactions.first?["inserts"] as? Int, 104)
        XCTAssertEqual(transactions.first?["updates"] as? Int, 0)
    }

    func testGenuineStoresOfThreeShapesComeBackWhole() throws {
        // Notes (inheritance, to-one entity columns, one-to-ones, history), Screen Time
        // (31 entities, thousands of objects, microsecond dates), a SwiftData store
        // (uniqueness constraints, JSON-backed attributes, an empty non-optional to-many),
        // and CoreDataPlus (a derived count kept by triggers, transformables).
        for fixture in ["RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite",
                        "log2timeline_plaso/RMAdminStore-Local.sqlite",
                        "Karim-ezzedine_CartKit/CartKitSwiftData_v1.sqlite",
                        "alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V2.sqlite"] {
            let work = try Fixtures.temporaryDirectory(self)
            let copy = try Fixtures.copy(fixture, into: work).path
            let (before, after, _) = try roundTrip(copy, in: work)
            XCTAssertEqual(after, before, fixture)
            XCTAssertGreaterThan(before.count, 500, fixture)
        }
    }

    /// Every genuine SwiftData fixture comes back as the same document, and every column of
    /// every entity and join table holds the source's bytes (Z_OPT apart: an import is a save).
    func testEverySwiftDataFixtureComesBackByteForByte() throws {
        for fixture in SwiftModelExportTests.swiftDataStores {
            let work = try Fixtures.temporaryDirectory(self)
            let copy = try Fixtures.copy(fixture, into: work).path
            let (before, after, created) = try roundTrip(copy, in: work)
            XCTAssertEqual(after, before, fixture)
            let tables = try SQLiteShell.read(copy, "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z*' "
                                              + "AND name NOT IN ('Z_PRIMARYKEY', 'Z_METADATA', 'Z_MODELCACHE') ORDER BY name").split(separator: "\n")
            XCTAssertFalse(tables.isEmpty, fixture)
            for table in tables {
                let columns = try SQLiteShell.read(copy, "SELECT group_concat('quote(' || name || ')', ', ') FROM pragma_table_info('\(table)') WHERE name <> 'Z_OPT'")
                let query = "SELECT \(columns) FROM \(table) ORDER BY 1, 2"
                XCTAssertEqual(try SQLiteShell.read(created, query), try SQLiteShell.read(copy, query), "\(fixture) \(table)")
            }
        }
    }

    /// A store whose objects break their own model (a required name that is NULL, as Core Data
    /// itself sometimes leaves behind) copied into a new store: refused by default, each
    /// object named; with --as-is copied as it is, each named with the rule it breaks, the
    /// rows the source's own.
    func testAsIsCopiesObjectsThatBreakTheirModel() throws {
        let work = folder.appendingPathComponent("as-is")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let source = try Fixtures.exampleStore(in: work).path
        try SQLiteShell.run(source, "UPDATE ZPERSON SET ZNAME = NULL WHERE Z_PK IN (2, 5)")
        let documentFile = work.appendingPathComponent("document.json")
        try Data(try succeeds(["export", source]).utf8).write(to: documentFile)
        let created = work.appendingPathComponent("created.sqlite").path
        try succeeds(["create", created, "--model", Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path])

        let refused = try cdinspect(["import", created, documentFile.path])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stdout.contains("rejected 2:"), refused.stdout)
        XCTAssertTrue(refused.stdout.contains("Person/p2]: name is required"), refused.stdout)
        XCTAssertEqual(try SQLiteShell.read(created, "SELECT count(*) FROM ZPERSON"), "0", "nothing written")

        let dry = try succeeds(["import", created, documentFile.path, "--as-is", "--dry-run"])
        XCTAssertTrue(dry.contains("would keep 2 as they are, breaking the model's rules:"), dry)
        XCTAssertEqual(try SQLiteShell.read(created, "SELECT count(*) FROM ZPERSON"), "0", "a dry run writes nothing")

        let kept = try cdinspect(["import", created, documentFile.path, "--as-is"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        let lines = kept.stdout.split(separator: "\n").map(String.init)
        // The document is another store's (its own Z_UUID): copies, and said to be.
        XCTAssertEqual(lines.first, "inserted 37 Car, 50 Person, 13 SportsCar, 4 Tag; 104 of the inserted are copies of another store's objects (their IDs name another Z_UUID)", kept.stdout)
        XCTAssertTrue(lines.contains("kept 2 as they are, breaking the model's rules:"), kept.stdout)
        let named = lines.filter { $0.hasPrefix("  ") }
        XCTAssertEqual(named.count, 2, kept.stdout)
        XCTAssertTrue(named[0].hasSuffix("/Person/p2]: name is required"), named[0])
        XCTAssertTrue(named[1].hasSuffix("/Person/p5]: name is required"), named[1])
        XCTAssertFalse(kept.stdout.contains("rejected"), kept.stdout)
        for table in ["ZPERSON", "ZCAR", "ZTAG", "Z_3TAGS"] {
            XCTAssertEqual(try SQLiteShell.read(created, "SELECT * FROM \(table) ORDER BY 1, 2"),
                           try SQLiteShell.read(source, "SELECT * FROM \(table) ORDER BY 1, 2"), table)
        }
        // A value's own rules still reject it.
        let badAge = try write(#"[{"name": "x", "id": "44444444-1111-4111-8111-111111111111", "age": "old"}]"#, "bad.json")
        let typed = try cdinspect(["import", created, badAge, "--entity", "Person", "--as-is"])
        XCTAssertEqual(typed.status, 1)
        XCTAssertTrue(typed.stdout.contains("age expects an integer"), typed.stdout)
    }

    func testCSVNamesEveryRejectedRowAndWritesAllOrNothing() throws {
        let csv = try write("""
            name,age,birthday,isActive,id
            zoe,31,1990-01-02T03:04:05Z,true,11111111-1111-4111-8111-111111111111
            "li, jr",40,,false,
            max,old,,true,22222222-1111-4111-8111-111111111111
            "",7,,no,33333333-1111-4111-8111-111111111111

            """, "people.csv")
        let before = try SQLiteShell.read(store, "SELECT count(*), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person') FROM ZPERSON")
        let refused = try cdinspect(["import", store, csv, "--entity", "Person"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stdout.contains("line 3: id is required"), refused.stdout)
        XCTAssertTrue(refused.stdout.contains("line 4: age expects an integer, not \"old\""), refused.stdout)
        XCTAssertTrue(refused.stderr.contains("2 object(s) rejected: nothing was written"), refused.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person') FROM ZPERSON"), before)

        // A dry run says the same and writes nothing; skip-invalid writes the two good rows.
        let dry = try cdinspect(["import", store, csv, "--entity", "Person", "--mode", "skip-invalid", "--dry-run"])
        XCTAssertEqual(dry.status, 1)
        XCTAssertTrue(dry.stdout.contains("would insert 2 Person"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("dry run: nothing was written"), dry.stdout)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person') FROM ZPERSON"), before)
        let written = try cdinspect(["import", store, csv, "--entity", "Person", "--mode", "skip-invalid"])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue(written.stdout.hasPrefix("inserted 2 Person\nrejected 2:\n"), written.stdout)
        // Keys from Z_MAX, Z_OPT 1, the model's defaults, a quoted empty field the empty string.
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE, ZISACTIVE, ZSCORE, ZBIRTHDAY FROM ZPERSON WHERE Z_PK > 50 ORDER BY Z_PK"),
                       "51|3|1|zoe|31|1|0.0|-347057755\n52|3|1||7|0|0.0|")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'"), "52")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT hex(ZID) FROM ZPERSON WHERE Z_PK = 51"), "11111111111141118111111111111111")
    }

    func testSkipInvalidWritesNothingWhenARejectedObjectMayBeNamed() throws {
        // A car the model refuses (a year of text), named by its owner.
        let uuid = Fixtures.exampleUUID
        let document = try write("""
            {"format": 1, "storeUUID": "\(uuid)", "entities": [
              {"entity": "Car", "objects": [
                {"objectID": "x-coredata://\(uuid)/Car/p1", "name": "Fiat", "plate": "XX-1", "year": "old"},
                {"objectID": "x-coredata://\(uuid)/Car/p2", "name": "VW", "plate": "XX-2", "year": 2020}]},
              {"entity": "Person", "objects": [
                {"objectID": "x-coredata://\(uuid)/Person/p1", "name": "ann", "id": "11111111-1111-4111-8111-111111111111",
                 "cars": ["x-coredata://\(uuid)/Car/p1", "x-coredata://\(uuid)/Car/p2"]}]}]}
            """, "doc.json")
        let before = try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR")
        let result = try cdinspect(["import", store, document, "--mode", "skip-invalid"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("Car object 1 (line 3) [x-coredata://\(uuid)/Car/p1]: year expects an integer, not \"old\""),
                      result.stdout)
        XCTAssertTrue(result.stderr.contains("1 rejected object(s) have object IDs other objects of the file may name: nothing was written"),
                      result.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR"), before)
    }

    func testAHandEditedStoreIsRefusedWhereASaveWouldRefuseIt() throws {
        // A version that is no integer: the upsert cannot check it, and says so.
        try SQLiteShell.run(store, "UPDATE ZPERSON SET Z_OPT = 'x' WHERE Z_PK = 1")
        let people = try write("name,age,id\ndave0,50,00000000-0000-4000-8000-000000000000\n", "people.csv")
        let upsert = try cdinspect(["import", store, people, "--entity", "Person", "--upsert", "id"])
        XCTAssertEqual(upsert.status, 1, upsert.stderr)
        XCTAssertTrue(upsert.stdout.contains("the matching Person's version (Z_OPT) is \"x\", not an integer"), upsert.stdout)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT ZAGE FROM ZPERSON WHERE Z_PK = 1"), "43")
        // Two people with one id: an upsert of an object with an object ID (matched in the
        // first pass) is a rejection, not an error of the whole import.
        try SQLiteShell.run(store, "DROP INDEX IF EXISTS Z_Person_UNIQUE_id; UPDATE ZPERSON SET ZID = (SELECT ZID FROM ZPERSON WHERE Z_PK = 3) WHERE Z_PK = 4")
        let twice = try write(#"[{"objectID": "x-coredata://\#(Fixtures.exampleUUID)/Person/p3", "name": "x", "id": "00000000-0000-4002-AAF8-94FE72F36E3C"}]"#,
                              "twice.json")
        let matched = try cdinspect(["import", store, twice, "--upsert", "id"])
        XCTAssertEqual(matched.status, 1, matched.stderr)
        XCTAssertTrue(matched.stdout.contains("Person object 1 (line 1) [id=00000000-0000-4002-AAF8-94FE72F36E3C]: more than one Person in the store has these key values"),
                      matched.stdout)
        XCTAssertTrue(matched.stderr.hasPrefix("cdinspect: error: 1 object(s) rejected"), matched.stderr)
        // A key counter that is no integer: refused as a save refuses it, in one line.
        try SQLiteShell.run(store, "UPDATE Z_PRIMARYKEY SET Z_MAX = 'abc' WHERE Z_NAME = 'Tag'")
        let tags = try write(#"[{"name": "t1"}]"#, "tags.json")
        let counter = try cdinspect(["import", store, tags, "--entity", "Tag"])
        XCTAssertEqual(counter.status, 1)
        XCTAssertEqual(counter.stderr, "cdinspect: error: Z_PRIMARYKEY's Z_MAX for Tag is \"abc\", not an integer: new Tag objects cannot be given primary keys\n")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZTAG"), "4")
    }

    func testUpsertAndLinksKeepBothSidesAndHistory() throws {
        let home = folder.appendingPathComponent("h")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let historyStore = try Fixtures.exampleStore(in: home, history: true).path
        let people = try write("""
            id,name,age
            00000000-0000-4000-8000-000000000000,dave0,44
            99999999-1111-4111-8111-111111111111,newcomer,20
            00000000-0000-4001-957C-4A7FB979379E,dave1,19

            """, "people.csv")
        let result = try succeeds(["import", historyStore, people, "--entity", "Person", "--upsert", "id"])
        XCTAssertEqual(result, "inserted 1 Person; updated 1 Person; 1 unchanged\n")
        XCTAssertEqual(try SQLiteShell.read(historyStore, "SELECT ZAGE, Z_OPT FROM ZPERSON WHERE ZNAME = 'dave0'"), "44|2")
        XCTAssertEqual(try SQLiteShell.read(historyStore, "SELECT Z_OPT FROM ZPERSON WHERE ZNAME = 'dave1'"), "1")
        var transactions = try XCTUnwrap(CLI.json(["history", historyStore, "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(transactions.last?["author"] as? String, "cdinspect-import")
        XCTAssertEqual(transactions.last?["inserts"] as? Int, 1)
        XCTAssertEqual(transactions.last?["updates"] as? Int, 1)

        // A car linked to its owner by name: the owner is saved too (its cars changed).
        let cars = try write("name,plate,year,owner\nFiat,XX-1,2020,newcomer\nVW,XX-2,2021,nobody\n", "cars.csv")
        let linked = try cdinspect(["import", historyStore, cars, "--entity", "Car", "--link", "owner=name", "--mode", "skip-invalid"])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertTrue(linked.stdout.contains("line 3: owner: no Person has name = \"nobody\""), linked.stdout)
        XCTAssertEqual(try SQLiteShell.read(historyStore, "SELECT p.ZNAME, p.Z_OPT FROM ZCAR c JOIN ZPERSON p ON p.Z_PK = c.ZOWNER WHERE c.ZPLATE = 'XX-1'"),
                       "newcomer|2")
        transactions = try XCTUnwrap(CLI.json(["history", historyStore, "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(transactions.last?["inserts"] as? Int, 1)
        XCTAssertEqual(transactions.last?["updates"] as? Int, 1)
        let grouped = try XCTUnwrap(CLI.json(["history", historyStore, "--format", "json", "--changes"]) as? [[String: Any]])
        let changes = try XCTUnwrap(grouped.last?["changes"] as? [[String: Any]])
        let ownerChange = try XCTUnwrap(changes.first { $0["type"] as? String == "update" })
        XCTAssertEqual(ownerChange["entity"] as? String, "Person")
        XCTAssertEqual(ownerChange["updated"] as? [String], ["cars"])

        // A JSON array of tags naming store objects: join rows, and each person saved.
        let tags = try write("""
            [{"name": "imported", "people": ["\(Fixtures.uri("Person/p1", uuid: try SQLiteShell.read(historyStore, "SELECT Z_UUID FROM Z_METADATA")))"]}]
            """, "tags.json")
        try succeeds(["import", historyStore, tags, "--entity", "Tag"])
        XCTAssertEqual(try SQLiteShell.read(historyStore, "SELECT count(*) FROM Z_3TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS WHERE t.ZNAME = 'imported' AND j.Z_3PEOPLE = 1"), "1")
        XCTAssertEqual(try SQLiteShell.read(historyStore, "SELECT Z_OPT FROM ZPERSON WHERE Z_PK = 1"), "3")
    }

    func testRefusesAHeldStoreAMirroredStoreAndASession() throws {
        let tags = try write(#"[{"name": "t1"}]"#, "tags.json")
        let app = try SessionDriver(store: store)
        XCTAssertEqual(app.run("count Tag").out, "4\n")
        let held = try cdinspect(["import", store, tags, "--entity", "Tag"])
        XCTAssertEqual(held.status, 1)
        XCTAssertTrue(held.stderr.contains("is open in process "), held.stderr)
        XCTAssertTrue(held.stderr.contains("(--force imports anyway)"), held.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZTAG"), "4")
        try succeeds(["import", store, tags, "--entity", "Tag", "--force"])
        XCTAssertEqual(try app.finish(), 0)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZTAG"), "5")

        try SQLiteShell.run(store, "CREATE TABLE ANSCKRECORDMETADATA(Z_PK INTEGER PRIMARY KEY)")
        let mirrored = try cdinspect(["import", store, tags, "--entity", "Tag"])
        XCTAssertEqual(mirrored.status, 1)
        XCTAssertTrue(mirrored.stderr.contains("mirrored to CloudKit: the app would export the imported objects to iCloud"), mirrored.stderr)
        XCTAssertTrue(mirrored.stderr.contains("--allow-cloudkit"), mirrored.stderr)
        try succeeds(["import", store, tags, "--entity", "Tag", "--allow-cloudkit"])
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZTAG"), "6")

        let inSession = try cdinspect([store, "-c", "import \(tags) --entity Tag"])
        XCTAssertEqual(inSession.status, 64)
        XCTAssertTrue(inSession.stderr.contains("run it as 'cdinspect import STORE"), inSession.stderr)
    }

    func testHostileFilesAreOneLineEachAndTheStoreStaysAsItWas() throws {
        let uuid = Fixtures.exampleUUID
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let huge = String(repeating: "x", count: 20_000_000)
        let cases: [(name: String, bytes: Data, arguments: [String], says: String)] = [
            ("truncated.json", Data(#"[{"name": "a"}, {"name": "#.utf8), ["--entity", "Tag"], "line 1: the file ends"),
            ("invalid-utf8.json", Data([0x5B, 0x7B, 0x22, 0x6E, 0x61, 0x6D, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D, 0x5D]), ["--entity", "Tag"],
             "not valid UTF-8"),
            ("invalid-utf8.csv", Data([0x6E, 0x61, 0x6D, 0x65, 0x0A, 0xC3, 0x28, 0x0A]), ["--entity", "Tag"], "not valid UTF-8"),
            ("deep.json", Data(#"[{"name": \#(deep)}]"#.utf8), ["--entity", "Tag"], "nest deeper than"),
            ("deep-top.json", Data(deep.utf8), ["--entity", "Tag"], "expected an object"),
            ("huge.json", Data(#"[{"name": "n", "id": "11111111-1111-4111-8111-111111111111", "age": "\#(huge)"}]"#.utf8),
             ["--entity", "Person"], "age expects an integer"),
            ("types.json", Data(#"[{"name": 5}]"#.utf8), ["--entity", "Tag"], "name is a String, not 5"),
            ("unknown.json", Data(#"[{"name": "a", "colour": "red"}]"#.utf8), ["--entity", "Tag"], "Tag has no attribute or relationship colour"),
            ("missing.json", Data(#"[{"name": "a", "people": ["x-coredata://\#(uuid)/Person/p999"]}]"#.utf8), ["--entity", "Tag"],
             "neither an object of the file nor one of the store"),
            ("empty.json", Data(), ["--entity", "Tag"], "is empty"),
            ("blank.json", Data("  \n".utf8), ["--entity", "Tag"], "the file holds no JSON"),
            ("object.json", Data(#"{"a": 1}"#.utf8), [], "expected export's document"),
            ("unclosed.csv", Data("name\n\"abc\n".utf8), ["--entity", "Tag"], "a quoted field is not closed"),
            ("header.csv", Data("name,bogus\nx,1\n".utf8), ["--entity", "Tag"], "Tag has no attribute or relationship bogus"),
            ("noentity.csv", Data("name\nx\n".utf8), [], "name it with --entity"),
            ("twice.json", Data(#"[{"objectID": "x-coredata://A/Tag/p1", "name": "a"}, {"objectID": "x-coredata://A/Tag/p1", "name": "b"}]"#.utf8), [],
             "holds the object A/Tag/p1 twice"),
        ]
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let rows = try SQLiteShell.read(store, "SELECT count(*) FROM ZTAG")
        for item in cases {
            let file = folder.appendingPathComponent(item.name)
            try item.bytes.write(to: file)
            let result = try cdinspect(["import", store, file.path] + item.arguments)
            XCTAssertEqual(result.status, 1, "\(item.name): \(result.stdout) \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(item.name): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cdinspect: error: "), "\(item.name): \(result.stderr)")
            XCTAssertTrue((result.stdout + result.stderr).contains(item.says), "\(item.name): \(result.stdout) \(result.stderr)")
            XCTAssertLessThan(result.stdout.count, 2000, item.name)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before, item.name)
            XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZTAG"), rows, item.name)
        }
        let missingFile = try cdinspect(["import", store, folder.appendingPathComponent("nothing.json").path, "--entity", "Tag"])
        XCTAssertEqual(missingFile.status, 1)
        XCTAssertTrue(missingFile.stderr.contains("cannot read"), missingFile.stderr)
        let badMode = try cdinspect(["import", store, folder.appendingPathComponent("types.json").path, "--mode", "sometimes"])
        XCTAssertEqual(badMode.status, 64)
    }
}

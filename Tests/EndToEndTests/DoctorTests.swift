import Foundation
import ManagedStore
import StoreCreation
import XCTest

/// `doctor` on stores with one defect each, made through cdinspect and the sqlite3 shell:
/// it names exactly that defect, with its count and object IDs, and exits 1 for an error.
final class DoctorTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    /// A fresh example store (ten people) in a folder of its own.
    func example(history: Bool = false, people: Int = 10) throws -> String {
        let into = folder.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        return try Fixtures.exampleStore(in: into, people: people, history: history).path
    }

    func doctor(_ store: String, _ arguments: [String] = []) throws -> (status: Int32, report: [String: Any], stderr: String) {
        let r = try CLI.run(["doctor", store, "--format", "json"] + arguments)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        return (r.status, report, r.stderr)
    }

    /// "check entity property count [examples]" of each finding.
    func summary(_ findings: Any?) -> [String] {
        (findings as? [[String: Any]] ?? []).map { f in
            let examples = (f["examples"] as? [String] ?? []).map { $0.split(separator: "/").suffix(2).joined(separator: "/") }
            return "\(f["check"]!) \(f["entity"] as? String ?? "-") \(f["property"] as? String ?? "-") \(f["count"]!) \(examples)"
        }
    }

    func assertFinds(_ store: String, _ expected: [String], status: Int32 = 1, file: StaticString = #filePath, line: UInt = #line) throws {
        let (code, report, stderr) = try doctor(store)
        XCTAssertEqual(summary(report["findings"]), expected, file: file, line: line)
        XCTAssertEqual(code, status, stderr, file: file, line: line)
    }

    /// Indexes: a fetch index the model declares and the store lacks, a to-one key with no
    /// index on a large table, and SQLite's statistics, never gathered or stale.
    func testIndexesTheModelDeclaresAndTheKeysNeed() throws {
        func checks(_ store: String) throws -> [String] {
            summary(try doctor(store).report["findings"]).filter {
                ["fetch_index_missing", "to_one_unindexed", "statistics_never_gathered", "statistics_stale"].contains(String($0.split(separator: " ")[0]))
            }
        }
        // A store Core Data wrote with its fetch index: nothing missing; then without it.
        let genuine = try Fixtures.copy("alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V2.sqlite", into: folder).path
        XCTAssertEqual(try checks(genuine), [])
        try SQLiteShell.run(genuine, "DROP INDEX Z_Car_byMakerAndNumberPlate")
        XCTAssertEqual(try checks(genuine), ["fetch_index_missing Car maker,numberPlate 1 []"])
        // The owner key of 11,000 cars without its index; a small table's is not named.
        let large = try example(people: 11_000)
        try SQLiteShell.run(large, "DROP INDEX ZCAR_ZOWNER_INDEX")
        XCTAssertEqual(try checks(large), ["to_one_unindexed Car owner 11000 []"])
        let small = try example()
        try SQLiteShell.run(small, "DROP INDEX ZCAR_ZOWNER_INDEX")
        XCTAssertEqual(try checks(small), [])
        // A store of 100,000 people without statistics gets a note, not a warning.
        let bulk = try example()
        try SQLiteShell.run(bulk, "INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE, ZISACTIVE, ZID) SELECT value + 1000, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'), 1, 'p' || value, 20, 1, randomblob(16) FROM generate_series(1, 100000); UPDATE Z_PRIMARYKEY SET Z_MAX = 101000 WHERE Z_NAME = 'Person';")
        XCTAssertEqual(try checks(bulk), ["statistics_never_gathered - - 100010 []"])
        // Statistics gathered at 10 rows, the table grown past twice that.
        let analysed = try example()
        try SQLiteShell.run(analysed, "ANALYZE")
        XCTAssertEqual(try checks(analysed), [])
        try SQLiteShell.run(analysed, "INSERT INTO ZTAG(Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT value + 100, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'), 1, 't' || value FROM generate_series(1, 2000); UPDATE Z_PRIMARYKEY SET Z_MAX = 2100 WHERE Z_NAME = 'Tag';")
        XCTAssertEqual(try checks(analysed).map { String($0.split(separator: " ").prefix(2).joined(separator: " ")) }, ["statistics_stale Tag"])
    }

    func testACleanStoreAndWhereItsSpaceGoes() throws {
        let store = try example()
        let (status, report, _) = try doctor(store)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(summary(report["findings"]), [])
        XCTAssertEqual(report["verdict"] as? String, "no problem found")
        let space = try XCTUnwrap(report["space"] as? [String: Any])
        let items = try XCTUnwrap(space["items"] as? [[String: Any]])
        let person = try XCTUnwrap(items.first { $0["name"] as? String == "ZPERSON (Person)" })
        XCTAssertEqual(person["count"] as? Int, 10)
        XCTAssertGreaterThan(person["bytes"] as? Int ?? 0, 0, "dbstat sized the table")
        XCTAssertNotNil(items.first { $0["kind"] as? String == "free" })
        // A table several entities share names each with its own rows.
        let cars = try SQLiteShell.read(store, "SELECT group_concat(n, ',') FROM (SELECT count(*) AS n FROM ZCAR GROUP BY Z_ENT ORDER BY Z_ENT)").split(separator: ",")
        XCTAssertNotNil(items.first { $0["name"] as? String == "ZCAR (Car \(cars[0]), SportsCar \(cars[1]))" }, "\(items)")
        let heaviest = try XCTUnwrap(space["heaviestAttributes"] as? [[String: Any]])
        let names = try SQLiteShell.read(store, "SELECT sum(length(ZNAME)), max(length(ZNAME)) FROM ZPERSON").split(separator: "|")
        let name = try XCTUnwrap(heaviest.first { $0["entity"] as? String == "Person" && $0["attribute"] as? String == "name" })
        XCTAssertEqual(name["total"] as? Int, Int(names[0]))
        XCTAssertEqual(name["largest"] as? Int, Int(names[1]))
        // Every format reports; the table ends with the verdict.
        for format in ["table", "csv", "line"] {
            let r = try CLI.run(["doctor", store, "--format", format])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.contains("ZPERSON"), "\(format): \(r.stdout)")
        }
        XCTAssertTrue(try CLI.run(["doctor", store]).stdout.hasSuffix("verdict: no problem found\n"))
    }

    func testKeyDefects() throws {
        var store = try example()
        try SQLiteShell.run(store, "UPDATE Z_PRIMARYKEY SET Z_MAX = 7 WHERE Z_NAME = 'Person'")
        try assertFinds(store, ["z_max Person - 3 [\"Person/p8\", \"Person/p9\", \"Person/p10\"]"])

        store = try example()
        try SQLiteShell.run(store, "UPDATE ZTAG SET Z_ENT = 42 WHERE Z_PK = 1")
        try assertFinds(store, ["unknown_entity #42 - 1 [\"#42/p1\"]"])
        // Every row of such a number is named, up to five, as other findings name theirs.
        store = try example()
        try SQLiteShell.run(store, "UPDATE ZPERSON SET Z_ENT = 42 WHERE Z_PK <= 7")
        try assertFinds(store, ["unknown_entity #42 - 7 [\"#42/p1\", \"#42/p2\", \"#42/p3\", \"#42/p4\", \"#42/p5\"]"])

        store = try example()
        let car = try SQLiteShell.read(store, "SELECT Z_PK FROM ZCAR WHERE Z_ENT = 2 ORDER BY Z_PK LIMIT 1")
        try SQLiteShell.run(store, "UPDATE ZCAR SET ZOWNER = 999 WHERE Z_PK = \(car)")
        // The example names the row as its own entity: a sports car.
        try assertFinds(store, ["dangling_to_one Car owner 1 [\"SportsCar/p\(car)\"]"])

        // A key inside the range of a table with a gap: looked up, not ruled out by the range.
        store = try example()
        try SQLiteShell.run(store, """
            UPDATE ZCAR SET ZOWNER = NULL WHERE ZOWNER = 3; DELETE FROM Z_3TAGS WHERE Z_3PEOPLE = 3; DELETE FROM ZPERSON WHERE Z_PK = 3;
            UPDATE ZCAR SET ZOWNER = 3 WHERE Z_PK = 1;
            """)
        let first = try SQLiteShell.read(store, "SELECT p.Z_NAME FROM ZCAR c JOIN Z_PRIMARYKEY p ON p.Z_ENT = c.Z_ENT WHERE c.Z_PK = 1")
        try assertFinds(store, ["dangling_to_one Car owner 1 [\"\(first)/p1\"]"])

        store = try example()
        try SQLiteShell.run(store, "INSERT INTO Z_3TAGS (Z_3PEOPLE, Z_4TAGS) VALUES (999, 1)")
        try assertFinds(store, ["dangling_join_row Person tags 1 [\"Person/p999\"]"], status: 0)
    }

    func testRowDefects() throws {
        var store = try example()
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZNAME = NULL WHERE Z_PK = 4")
        try assertFinds(store, ["required_null Person name 1 [\"Person/p4\"]"])

        store = try example()
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZAGE = 'old' WHERE Z_PK = 5; UPDATE ZPERSON SET ZAGE = 3000000000 WHERE Z_PK = 6")
        try assertFinds(store, ["value_type Person age 2 [\"Person/p5\", \"Person/p6\"]"], status: 0)

        // External data: a row naming a file that is not there, and a file no row names.
        store = try example()
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZPHOTO = CAST(x'02' || '0D1A2B3C-0000-4000-8000-000000000001' AS BLOB) WHERE Z_PK = 6")
        try assertFinds(store, ["external_missing Person photo 1 [\"Person/p6\"]"])
        let external = URL(fileURLWithPath: AttributeValueDecoder.externalDataPath(for: store, name: ""))
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 100).write(to: external.appendingPathComponent("0D1A2B3C-0000-4000-8000-000000000001"))
        try Data(repeating: 7, count: 300).write(to: external.appendingPathComponent("LEFT-BEHIND"))
        let (status, report, _) = try doctor(store)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(summary(report["findings"]), ["external_orphan - - 1 []"])
        XCTAssertTrue(((report["findings"] as? [[String: Any]])?.first?["detail"] as? String ?? "").contains("LEFT-BEHIND"))
        let files = ((report["space"] as? [String: Any])?["items"] as? [[String: Any]])?.first { $0["name"] as? String == "external data files" }
        XCTAssertEqual(files?["bytes"] as? Int, 400)
        XCTAssertEqual(files?["count"] as? Int, 2)
    }

    func testADamagedFile() throws {
        let store = try example()
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
        let page = Int(try SQLiteShell.read(store, "SELECT rootpage FROM sqlite_master WHERE name = 'ZCAR_ZOWNER_INDEX'")) ?? 0
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store))
        try handle.seek(toOffset: UInt64((page - 1) * 4096 + 8))
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 16))
        try handle.close()
        let (status, report, stderr) = try doctor(store)
        XCTAssertEqual(status, 1)
        // Findings are the answer, not a failure of doctor: no error line, in any format.
        XCTAssertFalse(stderr.contains("error:"), stderr)
        let table = try CLI.run(["doctor", store])
        XCTAssertEqual(table.status, 1)
        XCTAssertFalse(table.stderr.contains("error:"), table.stderr)
        XCTAssertTrue(table.stdout.contains("error"), table.stdout)
        // The damage is the one error; a check that could not read past it says so, as a warning.
        let findings = try XCTUnwrap(report["findings"] as? [[String: Any]]).filter { $0["severity"] as? String == "error" }
        XCTAssertEqual(findings.map { $0["check"] as? String ?? "" }, ["quick_check"])
        XCTAssertTrue((findings.first?["detail"] as? String ?? "").contains("On tree page \(page)"), "\(findings)")
        XCTAssertGreaterThan(findings.first?["count"] as? Int ?? 0, 0)
    }

    func testHistoryDefects() throws {
        var store = try example(history: true)
        var r = try CLI.run([store], stdin: "insert Person name=\"Gone\" id=\(UUID().uuidString)\nsave\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        try SQLiteShell.run(store, "DELETE FROM ZPERSON WHERE Z_PK = 11")
        try assertFinds(store, ["history_missing_object Person - 1 [\"Person/p11\"]"], status: 0)

        store = try example(history: true)
        r = try CLI.run([store], stdin: "update Person/p1 age=5\nsave\nupdate Person/p2 age=6\nsave\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        try SQLiteShell.run(store, "DELETE FROM ATRANSACTION WHERE Z_PK = 1")
        try assertFinds(store, ["history_orphan_change - - 1 []"], status: 0)
    }

    /// One-to-one pairs, ordered relationships and uniqueness constraints, on a model that
    /// has them.
    func testRelationshipAndConstraintDefects() throws {
        let model = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Book" representedClassName="Book" syncable="YES">
                    <attribute name="isbn" optional="YES" attributeType="String"/>
                    <relationship name="cover" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Cover" inverseName="book" inverseEntity="Cover"/>
                    <relationship name="chapters" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Chapter" inverseName="book" inverseEntity="Chapter"/>
                    <uniquenessConstraints><uniquenessConstraint><constraint value="isbn"/></uniquenessConstraint></uniquenessConstraints>
                </entity>
                <entity name="Cover" representedClassName="Cover" syncable="YES">
                    <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="cover" inverseEntity="Book"/>
                </entity>
                <entity name="Chapter" representedClassName="Chapter" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="chapters" inverseEntity="Book"/>
                </entity>
            </model>
            """
        func shelf() throws -> String {
            let into = folder.appendingPathComponent(UUID().uuidString, isDirectory: true)
            try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
            let contents = into.appendingPathComponent("Shelf.xcdatamodel")
            try FileManager.default.createDirectory(at: contents, withIntermediateDirectories: true)
            try model.write(to: contents.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
            let path = into.appendingPathComponent("Shelf.sqlite").path
            try StoreCreator.create(at: path, model: try XcdatamodelReader.model(atPath: contents.path))
            let r = try CLI.run([path], stdin: """
                insert Chapter title="One"
                insert Chapter title="Two"
                insert Cover
                save
                insert Book isbn="1" cover=Cover/p1 chapters={Chapter/p1,Chapter/p2}
                insert Book isbn="2"
                save
                """)
            XCTAssertEqual(r.status, 0, r.stderr)
            return path
        }
        var store = try shelf()
        try assertFinds(store, [], status: 0)

        store = try shelf()
        try SQLiteShell.run(store, "UPDATE ZCOVER SET ZBOOK = NULL WHERE Z_PK = 1")
        try assertFinds(store, ["one_to_one_mismatch Book cover 1 [\"Book/p1\"]"])

        store = try shelf()
        let order = try SQLiteShell.read(store, "SELECT name FROM pragma_table_info('ZCHAPTER') WHERE name LIKE 'Z_FOK%'")
        XCTAssertFalse(order.isEmpty)
        try SQLiteShell.run(store, "UPDATE ZCHAPTER SET \(order) = (SELECT \(order) FROM ZCHAPTER WHERE Z_PK = 1) WHERE Z_PK = 2")
        try assertFinds(store, ["order_keys Book chapters 1 [\"Book/p1\"]"], status: 0)

        store = try shelf()
        // Core Data's unique index keeps duplicates out; a store without it (made by hand, or
        // by a migration that added the constraint without one) can hold them.
        try SQLiteShell.run(store, "DROP INDEX Z_Book_UNIQUE_isbn; UPDATE ZBOOK SET ZISBN = '1' WHERE Z_PK = 2")
        try assertFinds(store, ["unique_duplicate Book isbn 1 [\"Book/p1\"]"])
    }

    /// On a big store, doctor says what it is doing after a second, and Ctrl-C stops it at once.
    func testProgressAndCtrlC() throws {
        let store = try example()
        try Fixtures.addBulkPeople(to: store)
        let (out, err) = (folder.appendingPathComponent("out").path, folder.appendingPathComponent("err").path)
        let child = try ChildProcess([CLI.binary.path, "doctor", store, "--full"], environment: ProcessInfo.processInfo.environment,
                                     files: [1: out, 2: err])
        // Wait for the first progress line (after a second), then interrupt.
        var waited = 0.0
        while waited < 30, ((try? String(contentsOfFile: err, encoding: .utf8)) ?? "").isEmpty {
            Thread.sleep(forTimeInterval: 0.1)
            waited += 0.1
        }
        XCTAssertTrue(((try? String(contentsOfFile: err, encoding: .utf8)) ?? "").hasPrefix("doctor: "), "no progress line")
        kill(child.pid, SIGINT)
        // A hang guard, no measure of speed: a doctor that ignored the interrupt is killed
        // after two minutes and fails on its status.
        var ending = child.pollEnding()
        for _ in 0..<6000 where ending == nil {
            usleep(20_000)
            ending = child.pollEnding()
        }
        if ending == nil { kill(child.pid, SIGKILL) }
        XCTAssertEqual((ending ?? child.waitForEnding()).status, 130)
        XCTAssertTrue((try String(contentsOfFile: err, encoding: .utf8)).contains("interrupted"))
    }

    /// Genuine stores: the only error-level findings are ones Core Data meets too.
    func testGenuineFixturesHaveNoErrorCoreDataWouldNotMeet() throws {
        for relative in try Fixtures.stores {
            let into = folder.appendingPathComponent(UUID().uuidString, isDirectory: true)
            try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
            let copy = try Fixtures.copy(relative, into: into)
            let (_, report, stderr) = try doctor(copy.path)
            let errors = (report["findings"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }
            // A required value that is NULL: Core Data reads the row, and refuses to save it
            // changed (Photos' Asset.videoKeyFrameTimeScale and videoKeyFrameValue).
            XCTAssertEqual(errors.filter { $0["check"] as? String != "required_null" }.count, 0, "\(relative): \(errors) \(stderr)")
        }
    }

    /// `doctor`'s space table counts each entity's rows as `count` does, on every genuine
    /// fixture, `-wal` or not. Notes' ZICCLOUDSYNCINGOBJECT (213 columns) showed 0 for every
    /// entity: its census asked one SQL function for more arguments than SQLite takes (127),
    /// the query failed, and the failure read as an empty table.
    func testTheSpaceTableCountsWhatCountCountsOnEveryGenuineFixture() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        var compared = 0
        for fixture in try Fixtures.everyStore {
            let path = try Fixtures.copy(fixture, into: folder).path
            let store = try PersistentStore(path: path, options: .init(readonly: true))
            let entities = store.mapping.entities.filter { $0.entityID != nil && !$0.isAbstract && store.schema.table($0.table) != nil }
            store.close()
            guard store.isCoreDataStore, !entities.isEmpty else { continue }
            // (doctor exits 1 on a store with errors; its report is there all the same)
            let doctor = try CLI.run(["doctor", path, "--format", "json"])
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any], "\(fixture): \(doctor.stderr)")
            let items = try XCTUnwrap((report["space"] as? [String: Any])?["items"] as? [[String: Any]], fixture)
            var own: [String: Int64] = [:]
            for item in items where item["kind"] as? String == "table" {
                for e in item["entities"] as? [[String: Any]] ?? [] {
                    own[e["entity"] as? String ?? ""] = (e["rows"] as? NSNumber)?.int64Value
                }
            }
            // count includes sub-entities' objects, as a fetch does: summed over the tree.
            let counts = try CLI.run([path, "--readonly"], stdin: entities.map { "count \($0.name)\n" }.joined())
            let answered = counts.stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(answered.count, entities.count, "\(fixture): \(counts.stderr)")
            for (entity, line) in zip(entities, answered) {
                let tree = store.mapping.entities.filter { $0.entityID.map(entity.entityIDs.contains) ?? false }
                let summed = tree.reduce(Int64(0)) { $0 + (own[$1.name] ?? 0) }
                XCTAssertNotNil(own[entity.name], "\(fixture): \(entity.name) has no count in doctor's space table")
                XCTAssertEqual(String(summed), line, "\(fixture): \(entity.name)")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 200, "the genuine fixtures' entities")
    }


    /// A `-wal` whose commits are most of the store is a finding, with what to do: a copy of
    /// the `.sqlite` alone is an older state. Once checkpointed, the same store has none.
    func testALogMostOfTheStoreIsAFinding() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 10).path
        try SQLiteShell.commitLeavingWAL(store, [
            "PRAGMA wal_autocheckpoint = 0",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000) "
                + "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME, ZID, ZISACTIVE) SELECT 1000 + i, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'), 1, "
                + "printf('%.300c', 'x'), randomblob(16), 1 FROM n",
            "UPDATE Z_PRIMARYKEY SET Z_MAX = 5000 WHERE Z_NAME = 'Person'",
        ])
        let doctor = try CLI.run(["doctor", store, "--format", "csv"])
        let finding = try XCTUnwrap(doctor.stdout.split(separator: "\n").first { $0.contains("wal_not_checkpointed") }, doctor.stdout)
        XCTAssertTrue(finding.hasPrefix("health,"), String(finding))
        XCTAssertTrue(finding.contains("not yet copied into the main file") && finding.contains("copy it with its -wal and -shm"), String(finding))
        XCTAssertEqual(doctor.status, 0, "a warning, not an error")
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        XCTAssertFalse(try CLI.run(["doctor", store]).stdout.contains("wal_not_checkpointed"))
    }

}

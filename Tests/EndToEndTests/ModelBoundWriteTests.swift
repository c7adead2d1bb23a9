import Foundation
import XCTest

/// Writes that would store a value the model forbids (outside an Integer 16's range, a
/// fraction in an integer, 2 in a Boolean, nil in a non-optional attribute, infinity in a
/// Decimal) are refused with one line naming the attribute, whichever front end sent them,
/// and the store is left byte for byte as it was.
final class ModelBoundWriteTests: ExampleStoreTestCase {
    /// The main file and the `-wal` (absent and empty are the same: nothing to replay).
    func storeBytes() throws -> Data {
        let fm = FileManager.default
        let main = try XCTUnwrap(fm.contents(atPath: store))
        return main + (fm.contents(atPath: store + "-wal") ?? Data())
    }

    func testBatchUpdatesThatWouldBreakTheModelChangeNothing() throws {
        let refused: [(entity: String, set: String, message: String)] = [
            ("Car", "year=year*1000", "Car.year: year*1000 fails for Car/p"),
            ("Car", "year=year*1000", "does not fit an Integer 16 (-32768…32767); nothing was changed"),
            ("Car", "year=40000", "Car.year: 40000 does not fit an Integer 16 (-32768…32767)"),
            ("Car", "plate=nil", "Car.plate: plate is not optional, so it cannot be nil"),
            ("Car", "plate=year", "Car.plate: year does not give text, and plate is a String"),
            ("SportsCar", "topSpeed=topSpeed+3000000000", "SportsCar.topSpeed: topSpeed+3000000000 fails for SportsCar/p"),
            ("Person", "age=age+1e300", "does not fit an Integer 32 (-2147483648…2147483647); nothing was changed"),
            ("Person", "age=age*1.5", "is not a whole number, and age is an Integer 32"),
            ("Person", "age=3000000000", "Person.age: 3000000000 does not fit an Integer 32"),
            ("Person", "isActive=isActive+1", "is not a Boolean: isActive holds 0 or 1 (NO or YES)"),
            ("Person", "name=nil", "Person.name: name is not optional, so it cannot be nil"),
            ("Person", "balance=1e400", "Person.balance: infinity does not fit a Decimal"),
        ]
        let before = try storeBytes()
        let store: String = self.store
        for (entity, set, message) in refused {
            for arguments in [["batch-update", store, entity, "--set", set], [store, "-c", "batch-update \(entity) --set '\(set)'"]] {
                let result = try CLI.run(arguments)
                let what = arguments.joined(separator: " ")
                XCTAssertEqual(result.status, 1, what)
                XCTAssertTrue(result.stderr.hasPrefix("cdinspect: error: "), "\(what): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(message), "\(what): \(result.stderr)")
                XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, "\(what): \(result.stderr)")
                XCTAssertEqual(result.stdout, "", what)
            }
        }
        XCTAssertEqual(try storeBytes(), before, "a refused batch update changed the store")

        // The check is per row: values that fit are written, computed values included.
        let fits = try CLI.run(["batch-update", store, "Person", "--set", "age=age+1", "--where", "age < 100", "--result", "count"])
        XCTAssertEqual(fits.status, 0, fits.stderr)
        XCTAssertEqual(fits.stdout, "50\n")
        let nilYears = try CLI.run(["batch-update", store, "Car", "--set", "year=nil", "--result", "count"])
        XCTAssertEqual(nilYears.status, 0, nilYears.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR WHERE ZYEAR IS NULL"),
                       try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR"))
    }

    /// A computed value that fails only on the table's last row is found before anything is
    /// written: checked inside the `UPDATE`, the rows before it (far more than SQLite's page
    /// cache holds) had already spilled into the `-wal` and a statement journal, and, with
    /// an app holding the store open, the `-wal` stayed that large after the rollback.
    func testABatchUpdateThatFailsOnItsLastRowWritesNothing() throws {
        try SQLiteShell.run(store, """
            INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE, ZPHOTO)
              SELECT value + 1000, 3, 1, 'filler' || value, 30, randomblob(512) FROM generate_series(1, 20000);
            UPDATE ZPERSON SET ZAGE = 2147483000 WHERE Z_PK = 21000;
            UPDATE Z_PRIMARYKEY SET Z_MAX = 21000 WHERE Z_NAME = 'Person';
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        // The app: its connection keeps the `-wal` from being removed when cdinspect closes.
        let app = try RunningChild(["/usr/bin/sqlite3", store])
        defer { app.closeInput(); _ = app.wait() }
        app.write("SELECT count(*) FROM ZPERSON;\n")
        XCTAssertTrue(app.output.expect("20050\n"), app.errors.text)
        let before = try storeBytes()
        let failed = try CLI.run(["batch-update", store, "Person", "--set", "age=age+1000"])
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertEqual(failed.stderr, "cdinspect: error: Person.age: age+1000 fails for Person/p21000: 2147484000 does not fit "
                       + "an Integer 32 (-2147483648…2147483647); nothing was changed\n")
        XCTAssertEqual(try storeBytes(), before, "a batch update that failed on its last row changed the store's files")

        let fits = try CLI.run(["batch-update", store, "Person", "--set", "age=age+1", "--where", "age < 100", "--result", "count"])
        XCTAssertEqual(fits.stdout, "20049\n", fits.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZNAME LIKE 'filler%' AND ZAGE = 31"), "19999")
    }

    func testContextWritesOutsideTheModelAreRefusedInOneLine() throws {
        let before = try storeBytes()
        let outOfRange = try CLI.run([store, "-c", "update Person/p1 age=3000000000", "-c", "save"])
        XCTAssertEqual(outOfRange.status, 1)
        XCTAssertEqual(outOfRange.stderr,
                       "cdinspect: error: Person.age: 3000000000 does not fit an Integer 32 (-2147483648…2147483647)\n")

        // Core Data accepts nil until the save validates; the save then refuses, in one line.
        let missing = try CLI.run([store, "-c", "insert Car name=x", "-c", "insert Car name=y", "-c", "update Person/p1 name=nil",
                                   "-c", "save"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.hasPrefix("cdinspect: error: validation failed, nothing was saved: Car x-coredata:///Car/t"),
                      missing.stderr)
        XCTAssertTrue(missing.stderr.contains(": plate is required; Car x-coredata:///Car/t"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("; Person \(uri("Person/p1")): name is required\n"), missing.stderr)
        XCTAssertEqual(missing.stderr.filter { $0 == "\n" }.count, 1, missing.stderr)
        XCTAssertEqual(try storeBytes(), before, "a refused save changed the store")
    }
}

/// Damage SQLite does not report: a `-wal` whose header or frames do not verify (SQLite
/// then shows older data), a model cache that does not decode, a missing `Z_METADATA`.
/// Each is a warning, once per open, from the subcommand and the session alike.
final class DamageWarningTests: ExampleStoreTestCase {
    /// Three committed transactions left in the `-wal`, renaming p1, p2 and p3.
    func commitThreeRenames() throws {
        try SQLiteShell.commitLeavingWAL(store, ["UPDATE ZPERSON SET ZNAME = 'walA' WHERE Z_PK = 1",
                                                 "UPDATE ZPERSON SET ZNAME = 'walB' WHERE Z_PK = 2",
                                                 "UPDATE ZPERSON SET ZNAME = 'walC' WHERE Z_PK = 3"])
    }

    func damageWAL(at offset: UInt64) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: store + "-wal"))
        try handle.seek(toOffset: offset)
        let byte = try XCTUnwrap(handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: offset)
        handle.write(Data([byte ^ 0xFF]))
        try handle.close()
    }

    /// `count` of the renamed people, from both front ends, with stderr; the WAL is unchanged.
    func renamedPeople() throws -> [(count: String, stderr: String)] {
        let wal = try XCTUnwrap(FileManager.default.contents(atPath: store + "-wal"))
        let predicate = "name BEGINSWITH 'wal'"
        let oneShot = try CLI.run(["count", store, "Person", "--where", predicate])
        let session = try CLI.run([store, "-c", "count Person --where \"\(predicate)\"", "-c", "count Car"])
        XCTAssertEqual(FileManager.default.contents(atPath: store + "-wal"), wal, "reading changed the -wal")
        for result in [oneShot, session] { XCTAssertEqual(result.status, 0, result.stderr) }
        return [(oneShot.stdout, oneShot.stderr), (String(session.stdout.split(separator: "\n")[0]) + "\n", session.stderr)]
    }

    func testAHealthyWALSaysNothing() throws {
        try commitThreeRenames()
        for (count, stderr) in try renamedPeople() {
            XCTAssertEqual(count, "3\n")
            XCTAssertEqual(stderr, "")
        }
    }

    func testAFrameThatDoesNotVerifyHidesTheLaterCommits() throws {
        try commitThreeRenames()
        let pageSize = UInt64(try XCTUnwrap(Int(SQLiteShell.read(store, "PRAGMA page_size"))))
        try damageWAL(at: 32 + (24 + pageSize) + 24 + 200) // inside frame 2's page
        for (count, stderr) in try renamedPeople() {
            XCTAssertEqual(count, "1\n", "SQLite keeps the frames before the damaged one")
            XCTAssertEqual(stderr, "cdinspect: warning: \(store!): its -wal file does not verify from frame 2 on, so SQLite ignores "
                           + "2 committed transactions after it: the newest committed changes are not visible\n")
        }
    }

    func testADamagedHeaderHidesTheWholeWAL() throws {
        try commitThreeRenames()
        try damageWAL(at: 17) // a salt: the header's checksum no longer matches
        for (count, stderr) in try renamedPeople() {
            XCTAssertEqual(count, "0\n")
            XCTAssertTrue(stderr.hasPrefix("cdinspect: warning: \(store!): its -wal file's header is damaged, so SQLite ignores all 3 frames"),
                          stderr)
            XCTAssertEqual(stderr.filter { $0 == "\n" }.count, 1, stderr)
        }
    }

    func testAnUndecodableModelCacheFallsBackToTheSchemaAndSaysSo() throws {
        try SQLiteShell.run(store, "UPDATE Z_MODELCACHE SET Z_CONTENT = x'00112233'")
        let info = try CLI.run(["info", store, "--format", "json"])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertEqual(info.stderr, "cdinspect: warning: the store's model cache (Z_MODELCACHE) cannot be read (compressed data is truncated); "
                       + "the model is rebuilt from the schema, so property names are uppercase guesses (give --model to use the app's model)\n")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let model = try XCTUnwrap(object["model"] as? String)
        XCTAssertTrue(model.hasPrefix("schema (Z_MODELCACHE is there but cannot be read"), model)
        let count = try CLI.run([store, "-c", "count Person", "-c", "count Car"])
        XCTAssertEqual(count.stdout, "50\n\(try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR"))\n")
        XCTAssertEqual(count.stderr.components(separatedBy: "warning:").count, 2, "one warning per open: \(count.stderr)")
    }

    func testAStoreWithoutMetadataIsStillACoreDataStore() throws {
        try SQLiteShell.run(store, "DROP TABLE Z_METADATA")
        let entities = try CLI.run(["entities", store, "--format", "csv"])
        XCTAssertEqual(entities.status, 0, entities.stderr)
        XCTAssertEqual(entities.stderr, "cdinspect: warning: the store has no Z_METADATA row: it has no UUID, "
                       + "and no store type or model version hashes to show\n")
        XCTAssertTrue(entities.stdout.contains("\nSportsCar,Car,NO,ZCAR,2,"), entities.stdout)
        XCTAssertEqual(try CLI.run(["count", store, "SportsCar"]).stdout, try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR WHERE Z_ENT = 2") + "\n")
    }
}

import Foundation
import XCTest

/// A store that holds no model of its own (no `Z_MODELCACHE`: hwaxxer's BookMigration store,
/// framework 419, and Apptentive's test stores of 419 to 519) is migrated from the model
/// version it was written with, as Core Data picks it from the app's versions by the store's
/// version hashes, never from the names its columns suggest (`fileurl` for `fileURL`), which
/// took every such property for a new one and dropped its values.
final class SourceModelTests: XCTestCase {
    func testAStoreWithoutItsModelMigratesFromTheVersionWithItsHashes() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.copy("hwaxxer_BookMigration/Model1.sqlite", into: folder).path
        // The app's bundle: both versions, as Xcode keeps them.
        let bundle = folder.appendingPathComponent("Books.xcdatamodeld")
        for n in 1...2 {
            let version = bundle.appendingPathComponent("Model\(n).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixtures.directory.appendingPathComponent("hwaxxer_BookMigration/Model\(n).xcdatamodel__contents"),
                                             to: version.appendingPathComponent("contents"))
        }
        let next = bundle.appendingPathComponent("Model2.xcdatamodel").path
        let first = bundle.appendingPathComponent("Model1.xcdatamodel").path

        let planned = try CLI.run(["migrate", store, "--model", next, "--dry-run"])
        XCTAssertEqual(planned.status, 0, planned.stderr)
        XCTAssertTrue(planned.stdout.hasPrefix("migration of \(store) (written with model file \(first)) to model file \(next)"), planned.stdout)
        XCTAssertFalse(planned.stdout.contains("ZFILEURL: new"), "fileURL is Model1's own attribute, not a new one:\n\(planned.stdout)")

        let migrated = folder.appendingPathComponent("migrated.sqlite").path
        let ran = try CLI.run(["migrate", store, "--model", next, "--to", migrated])
        XCTAssertEqual(ran.status, 0, ran.stderr)
        let values = "SELECT count(*) || ' ' || group_concat(hex(ZFILEURL), '') FROM (SELECT ZFILEURL FROM ZBOOK ORDER BY Z_PK)"
        XCTAssertEqual(try SQLiteShell.read(migrated, values), try SQLiteShell.read(store, values))
        XCTAssertNotEqual(try SQLiteShell.read(migrated, "SELECT count(ZFILEURL) FROM ZBOOK"), "0")
        XCTAssertEqual(try SQLiteShell.read(migrated, "SELECT group_concat(ZUSERID) FROM ZUSER"), try SQLiteShell.read(store, "SELECT group_concat(ZUSERID) FROM ZUSER"))

        // model diff compares from the same version, and says so.
        let diff = try CLI.run(["model", store, "diff", next])
        XCTAssertTrue(diff.stderr.contains("compared from \(first), the version beside with its version hashes"), diff.stderr)
        XCTAssertFalse(diff.stdout.contains("fileurl"), diff.stdout)

        // doctor --model reads it the same way, and says so.
        let doctor = try CLI.run(["doctor", store, "--model", next])
        XCTAssertTrue(doctor.stderr.contains("read with \(first), the version beside with its version hashes"), doctor.stderr)

        // A new model with no version of the store beside it: refused, saying how to go on.
        let alone = folder.appendingPathComponent("Alone.xcdatamodel")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: next + "/contents", toPath: alone.appendingPathComponent("contents").path)
        let refused = try CLI.run(["migrate", store, "--model", alone.path, "--dry-run"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr, "cdinspect: error: the store holds no model of its own (no Z_MODELCACHE), and no version of the new model's bundle "
                       + "has its version hashes (1 tried): its properties' names and types are unknown, and a migration by the names its columns suggest would "
                       + "drop their values (give the model version it was written with: --source-model)\n")
        let given = try CLI.run(["migrate", store, "--model", alone.path, "--source-model", first, "--dry-run"])
        XCTAssertEqual(given.status, 0, given.stderr)
        XCTAssertFalse(given.stdout.contains("ZFILEURL: new"), given.stdout)
        // A source model that is not the store's: Core Data refuses it too.
        let wrong = try CLI.run(["migrate", store, "--model", alone.path, "--source-model", next, "--dry-run"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.hasPrefix("cdinspect: error: the source model is not the one the store was written with: the version hashes of Author, Book, User differ"),
                      wrong.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Model1.sqlite-wal").path))
    }
}

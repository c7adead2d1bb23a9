import Foundation
import XCTest

/// `entities` counts a hierarchy's rows as a fetch of each entity would: rows whose `Z_ENT`
/// names no entity (NULL, unknown, a fraction, text, a blob) count for none, with the
/// table's `Z_ENT` index and without it.
final class EntityCountsTests: ExampleStoreTestCase {
    func counts() throws -> [String: Int] {
        let entities = try XCTUnwrap(CLI.json(["entities", store, "--format", "json"]) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: entities.compactMap { e in
            (e["name"] as? String).map { ($0, e["count"] as? Int ?? -1) }
        })
    }

    func truth() throws -> [String: Int] {
        let cars = try SQLiteShell.run(store, "SELECT count(*) FROM ZCAR WHERE Z_ENT IN (1, 2)")
        let sports = try SQLiteShell.run(store, "SELECT count(*) FROM ZCAR WHERE Z_ENT = 2")
        return ["Car": Int(cars) ?? -1, "SportsCar": Int(sports) ?? -1]
    }

    func testHierarchyCountsAreWhatAFetchOfEachEntityCounts() throws {
        XCTAssertEqual(try SQLiteShell.run(store, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'SportsCar'"), "2")
        // Rows no entity owns: NULL, an unknown entity, a fraction between two, text.
        try SQLiteShell.run(store, """
            INSERT INTO ZCAR(Z_PK, Z_ENT, Z_OPT) VALUES (1001, NULL, 1), (1002, 7, 1), (1003, 0, 1),
                (1004, 1.5, 1), (1005, 'x', 1), (1006, X'01', 1)
            """)
        let before = try truth()
        XCTAssertEqual(try counts().filter { before.keys.contains($0.key) }, before)

        // SportsCar made the most numerous.
        try SQLiteShell.run(store, "UPDATE ZCAR SET Z_ENT = 2 WHERE Z_ENT = 1 AND Z_PK % 5 != 0")
        let after = try truth()
        XCTAssertGreaterThan(after["SportsCar"] ?? 0, (after["Car"] ?? 0) / 2)
        XCTAssertEqual(try counts().filter { after.keys.contains($0.key) }, after)

        // Without the index, the same counts.
        try SQLiteShell.run(store, "DROP INDEX ZCAR_Z_ENT_INDEX")
        XCTAssertEqual(try counts().filter { after.keys.contains($0.key) }, after)
        XCTAssertEqual(try counts()["Person"], 50)
    }

    /// A hand-edited table without `Z_PK` (which the count's probes read) is still counted.
    func testATableWithoutKeysIsStillCounted() throws {
        try SQLiteShell.run(store, """
            CREATE TABLE T2 AS SELECT Z_ENT, Z_OPT, ZOWNER, ZNAME, ZPLATE, ZYEAR, ZTOPSPEED FROM ZCAR;
            DROP TABLE ZCAR; ALTER TABLE T2 RENAME TO ZCAR; CREATE INDEX ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT)
            """)
        let expected = try truth()
        XCTAssertEqual(try counts().filter { expected.keys.contains($0.key) }, expected)
    }
}

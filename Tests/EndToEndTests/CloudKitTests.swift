import Foundation
import XCTest

/// `cloudkit` on example stores given the mirroring tables by hand, from the reference's
/// column lists (no genuine mirrored store is among the fixtures).
final class CloudKitTests: ExampleStoreTestCase {
    func entityNumber(_ name: String) throws -> String {
        try SQLiteShell.read(store, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(name)'")
    }

    func mirror() throws {
        let person = try entityNumber("Person"), car = try entityNumber("Car"), sports = try entityNumber("SportsCar")
        let sportsKey = try SQLiteShell.read(store, "SELECT min(Z_PK) FROM ZCAR WHERE Z_ENT = \(sports)")
        try SQLiteShell.run(store, """
            CREATE TABLE ANSCKRECORDZONEMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZDATABASESCOPE INTEGER,
              ZHASRECORDZONENUM INTEGER, ZCKOWNERNAME VARCHAR, ZCKRECORDZONENAME VARCHAR, ZCURRENTCHANGETOKEN BLOB );
            CREATE TABLE ANSCKRECORDMETADATA ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER,
              ZLASTEXPORTEDTRANSACTIONNUMBER INTEGER, ZNEEDSCLOUDDELETE INTEGER, ZNEEDSLOCALDELETE INTEGER, ZNEEDSUPLOAD INTEGER,
              ZPENDINGEXPORTCHANGETYPENUMBER INTEGER, ZPENDINGEXPORTTRANSACTIONNUMBER INTEGER, ZRECORDZONE INTEGER,
              ZCKRECORDNAME VARCHAR, ZENCODEDRECORDASSET BLOB, ZSYSTEMFIELDSASSET BLOB );
            CREATE TABLE ANSCKEVENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCLOUDKITEVENTTYPE INTEGER, ZERRORCODE INTEGER,
              ZSUCCEEDED INTEGER, ZENDEDAT TIMESTAMP, ZSTARTEDAT TIMESTAMP, ZERRORDOMAIN VARCHAR, ZEVENTIDENTIFIER BLOB );
            INSERT INTO ANSCKRECORDZONEMETADATA VALUES (1, 17004, 1, 2, 1, '__defaultOwner__', 'com.apple.coredata.cloudkit.zone', NULL),
              (2, 17004, 1, 3, 1, '_2c6e1f', 'com.apple.coredata.cloudkit.share.ABC', NULL);
            INSERT INTO ANSCKRECORDMETADATA (Z_PK, ZENTITYID, ZENTITYPK, ZLASTEXPORTEDTRANSACTIONNUMBER, ZNEEDSCLOUDDELETE, ZNEEDSUPLOAD, ZRECORDZONE, ZCKRECORDNAME) VALUES
              (1, \(person), 1, 5, 0, 0, 1, 'P-1'), (2, \(person), 2, 5, 0, 1, 1, 'P-2'), (3, \(person), 3, NULL, 1, 0, 2, 'P-3'),
              (4, \(car), 1, 7, 0, 1, 1, 'C-1'), (5, \(sports), \(sportsKey), 7, 0, 0, 1, 'S-1');
            INSERT INTO ANSCKEVENT (Z_PK, ZCLOUDKITEVENTTYPE, ZERRORCODE, ZSUCCEEDED, ZSTARTEDAT, ZENDEDAT, ZERRORDOMAIN) VALUES
              (1, 0, NULL, 1, 700000000, 700000001.5, NULL), (2, 1, 3, 0, 700000100, 700000102, 'CKErrorDomain'), (3, 2, NULL, 1, 700000200, NULL, NULL);
            """)
    }

    func rows(_ arguments: [String]) throws -> [[String: Any]] {
        try XCTUnwrap(CLI.json(["cloudkit", store] + arguments + ["--format", "json"]) as? [[String: Any]])
    }

    func testZonesEntitiesObjectsAndEvents() throws {
        try mirror()
        let zones = try rows(["zones"])
        XCTAssertEqual(zones.map { $0["zone"] as? String ?? "" }, ["com.apple.coredata.cloudkit.zone", "com.apple.coredata.cloudkit.share.ABC"])
        XCTAssertEqual(zones.map { $0["owner"] as? String ?? "" }, ["__defaultOwner__", "_2c6e1f"])
        XCTAssertEqual(zones.map { $0["scope"] as? Int ?? 0 }, [2, 3])
        XCTAssertEqual(zones.map { $0["objects"] as? Int ?? 0 }, [4, 1])

        let entities = try rows(["entities"])
        XCTAssertEqual(entities.map { "\($0["entity"]!) \($0["mirrored"]!) \($0["pendingUpload"]!) \($0["pendingDelete"]!)" }.sorted(),
                       ["Car 1 1 0", "Person 3 1 1", "SportsCar 1 0 0"])

        let people = try rows(["objects", "Person"])
        XCTAssertEqual(people.map { $0["objectID"] as? String ?? "" }, [uri("Person/p1"), uri("Person/p2"), uri("Person/p3")])
        XCTAssertEqual(people.map { $0["recordName"] as? String ?? "" }, ["P-1", "P-2", "P-3"])
        XCTAssertEqual(people.map { $0["zone"] as? String ?? "" }, ["com.apple.coredata.cloudkit.zone", "com.apple.coredata.cloudkit.zone",
                                                                    "com.apple.coredata.cloudkit.share.ABC"])
        XCTAssertEqual(people.map { $0["needsUpload"] as? Bool }, [false, true, false])
        XCTAssertEqual(people.map { $0["needsCloudDelete"] as? Bool }, [false, false, true])
        XCTAssertEqual(people.map { $0["lastExportedToken"] as? Int ?? -1 }, [5, 5, -1])
        // Sub-entities are included, and a predicate picks the objects whose rows match.
        XCTAssertEqual(try rows(["objects", "Car"]).map { $0["recordName"] as? String ?? "" }, ["C-1", "S-1"])
        let name = try SQLiteShell.read(store, "SELECT ZNAME FROM ZPERSON WHERE Z_PK = 2")
        XCTAssertEqual(try rows(["objects", "Person", "--where", "name == \"\(name)\""]).map { $0["recordName"] as? String ?? "" }, ["P-2"])
        XCTAssertEqual(try rows(["objects"]).count, 5)

        let events = try rows(["events"])
        XCTAssertEqual(events.map { $0["type"] as? String ?? "" }, ["setup", "import", "export"])
        XCTAssertEqual(events.map { $0["succeeded"] as? Bool }, [true, false, true])
        XCTAssertEqual(events[1]["errorDomain"] as? String, "CKErrorDomain")
        XCTAssertEqual(events[1]["errorCode"] as? Int, 3)
        XCTAssertEqual(events[0]["started"] as? String, "2023-03-08T20:26:40.000Z")
        XCTAssertEqual(events[0]["ended"] as? String, "2023-03-08T20:26:41.500Z")
        XCTAssertTrue(events[2]["ended"] is NSNull)

        let info = try XCTUnwrap(CLI.json(["info", store, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(info["cloudKitMirroring"] as? Bool, true)
    }

    func testMissingAndExtraColumnsAreNotErrors() throws {
        let person = try entityNumber("Person")
        try SQLiteShell.run(store, """
            CREATE TABLE ANSCKRECORDMETADATA ( Z_PK INTEGER PRIMARY KEY, ZENTITYID INTEGER, ZENTITYPK INTEGER, ZNEEDSUPLOAD INTEGER, ZSOMETHINGNEW BLOB );
            INSERT INTO ANSCKRECORDMETADATA VALUES (1, \(person), 4, 1, x'00'), (2, 999, 1, 0, NULL);
            """)
        let objects = try rows(["objects"])
        XCTAssertEqual(objects.map { $0["objectID"] as? String ?? "" }, [uri("Person/p4"), "x-coredata://\(Fixtures.exampleUUID)/#999/p1"])
        XCTAssertTrue(objects[0]["recordName"] is NSNull && objects[0]["zone"] is NSNull && objects[0]["lastExportedToken"] is NSNull)
        XCTAssertEqual(objects.map { $0["needsCloudDelete"] as? Bool }, [false, false])
        XCTAssertEqual(try rows(["zones"]).count, 0)
        XCTAssertEqual(try rows(["events"]).count, 0)
    }

    func testAStoreWithoutMirroringAndBadArguments() throws {
        var r = try CLI.run(["cloudkit", store])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("is not mirrored to CloudKit"), r.stderr)
        let info = try XCTUnwrap(CLI.json(["info", store, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(info["cloudKitMirroring"] as? Bool, false)
        try mirror()
        r = try CLI.run(["cloudkit", store, "records"])
        XCTAssertEqual(r.status, 64, r.stderr)
        r = try CLI.run(["cloudkit", store, "zones", "Person"])
        XCTAssertEqual(r.status, 64, r.stderr)
        r = try CLI.run(["cloudkit", store, "objects", "Persn"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("Person"), r.stderr)
    }
}

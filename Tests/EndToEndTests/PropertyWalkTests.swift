import Foundation
import XCTest

/// Which of two many-to-many relationships names their join table, and the order of several
/// order keys on one table, follow the order Core Data visits an entity's properties in (its
/// property hash tables, `PropertyWalk`), not their names: `create` and `migrate` write what
/// Core Data's own stores hold.
final class PropertyWalkTests: XCTestCase {
    /// Wire's UserClient (frameworks 1145 and earlier): its join table of `trustedClients` and
    /// `trustedByClients` is `Z_25TRUSTEDCLIENTS` up to 2.95.0 and `Z_25TRUSTEDBYCLIENTS` from
    /// 2.96.0, when one Boolean attribute, `needsSessionMigration`, was added; the
    /// `ignoredClients` pair keeps `Z_25IGNOREDCLIENTS` in both. Core Data's 2.96.0 migration
    /// renamed the table in place (`CREATE TABLE "Z_25TRUSTEDBYCLIENTS" ( Z_25TRUSTEDBYCLIENTS
    /// INTEGER, Z_25TRUSTEDCLIENTS INTEGER, …`), keeping the old table's index under its name
    /// beside the layout's. The entity is rebuilt here with its properties' names and types and
    /// Message as entity 11, as in Wire's model (its entity-number column `Z11_…` is a key of
    /// UserClient's table too); the numbers of the tables differ from Wire's (14, not 25).
    func testTheSideCoreDataVisitsFirstNamesAJoinTableAndAMigrationRenamesItInPlace() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let before = try Self.userClientModel(in: folder, named: "Before", attributes: Self.userClientAttributes)
        let after = try Self.userClientModel(in: folder, named: "After", attributes: Self.userClientAttributes + [("needsSessionMigration", "Boolean")])
        func joins(_ store: String) throws -> String {
            try SQLiteShell.read(store, "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_14*' ORDER BY name)")
        }
        let old = folder.appendingPathComponent("before.sqlite").path, new = folder.appendingPathComponent("after.sqlite").path
        for (store, model) in [(old, before), (new, after)] {
            let created = try CLI.run(["create", store, "--model", model])
            XCTAssertEqual(created.status, 0, created.stderr)
            XCTAssertEqual(created.stderr, "", "nothing left to warn of: the name is Core Data's")
        }
        XCTAssertEqual(try joins(old), "Z_14IGNOREDCLIENTS Z_14TRUSTEDCLIENTS")
        XCTAssertEqual(try joins(new), "Z_14IGNOREDCLIENTS Z_14TRUSTEDBYCLIENTS")
        XCTAssertEqual(try SQLiteShell.read(new, "SELECT sql FROM sqlite_master WHERE name = 'Z_14TRUSTEDBYCLIENTS'"),
                       "CREATE TABLE Z_14TRUSTEDBYCLIENTS ( Z_14TRUSTEDCLIENTS INTEGER, Z_14TRUSTEDBYCLIENTS INTEGER, PRIMARY KEY (Z_14TRUSTEDCLIENTS, Z_14TRUSTEDBYCLIENTS) )")

        let linked = try CLI.run([old, "-c", "insert UserClient", "-c", "insert UserClient", "-c", "save",
                                  "-c", "update UserClient/p1 trustedClients={UserClient/p2}", "-c", "save"])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        let migrated = folder.appendingPathComponent("migrated.sqlite").path
        let ran = try CLI.run(["migrate", old, "--model", after, "--to", migrated])
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertEqual(try joins(migrated), "Z_14IGNOREDCLIENTS Z_14TRUSTEDBYCLIENTS")
        XCTAssertEqual(try SQLiteShell.read(migrated, "SELECT sql FROM sqlite_master WHERE tbl_name = 'Z_14TRUSTEDBYCLIENTS' AND sql IS NOT NULL ORDER BY name"), """
            CREATE TABLE "Z_14TRUSTEDBYCLIENTS" ( Z_14TRUSTEDBYCLIENTS INTEGER, Z_14TRUSTEDCLIENTS INTEGER, PRIMARY KEY (Z_14TRUSTEDBYCLIENTS, Z_14TRUSTEDCLIENTS) )
            CREATE INDEX Z_14TRUSTEDBYCLIENTS_Z_14TRUSTEDBYCLIENTS_INDEX ON Z_14TRUSTEDBYCLIENTS (Z_14TRUSTEDBYCLIENTS, Z_14TRUSTEDCLIENTS)
            CREATE INDEX Z_14TRUSTEDCLIENTS_Z_14TRUSTEDCLIENTS_INDEX ON "Z_14TRUSTEDBYCLIENTS" (Z_14TRUSTEDCLIENTS, Z_14TRUSTEDBYCLIENTS)
            """)
        // The pair survives, read through the new table: p1 trusts p2 (each column holds the
        // objects its relationship leads to, as in the source's table).
        let read = try CLI.run([migrated, "-c", "get UserClient/p2 --format json"])
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertTrue(read.stdout.contains("UserClient/p1"), read.stdout)
        XCTAssertEqual(try SQLiteShell.read(old, "SELECT Z_14TRUSTEDBYCLIENTS || ',' || Z_14TRUSTEDCLIENTS FROM Z_14TRUSTEDCLIENTS"), "1,2")
        XCTAssertEqual(try SQLiteShell.read(migrated, "SELECT Z_14TRUSTEDBYCLIENTS || ',' || Z_14TRUSTEDCLIENTS FROM Z_14TRUSTEDBYCLIENTS"), "1,2")

        // Entity numbers move (one entity more before them): the join tables are renamed in
        // place and keep every index, the stale one too, renamed with them; an index of the
        // name the new layout gives stays the source's (Wire's 2.101.0 `Z_15ADDEDUSERS_
        // Z_23ADDEDUSERS_INDEX ON "Z_15ADDEDUSERS"`, a name its store held from an earlier
        // numbering). Then a migration that leaves UserClient as it is keeps its join tables'
        // indexes as they are (Wire's 2.98.0 keeps 2.96.0's stale `Z_23TRUSTEDCLIENTS_…`).
        try SQLiteShell.run(migrated, "CREATE INDEX Z_15IGNOREDCLIENTS_Z_15IGNOREDCLIENTS_INDEX ON Z_14IGNOREDCLIENTS (Z_14IGNOREDCLIENTS, Z_14IGNOREDBYCLIENTS)")
        let renumbered = try Self.userClientModel(in: folder, named: "Renumbered", attributes: Self.userClientAttributes + [("needsSessionMigration", "Boolean")], fillers: 11)
        let moved = folder.appendingPathComponent("moved.sqlite").path
        let movedRun = try CLI.run(["migrate", migrated, "--model", renumbered, "--to", moved])
        XCTAssertEqual(movedRun.status, 0, movedRun.stderr)
        // (Each old index under its name on the renamed table, quoted as SQLite rewrites it; the
        // layout's own beside them where the source had none of its name, as Wire's stores.)
        let movedIndexes = """
            Z_14IGNOREDCLIENTS_Z_14IGNOREDCLIENTS_INDEX ON "Z_15IGNOREDCLIENTS" (Z_15IGNOREDCLIENTS, Z_15IGNOREDBYCLIENTS)
            Z_14TRUSTEDBYCLIENTS_Z_14TRUSTEDBYCLIENTS_INDEX ON "Z_15TRUSTEDBYCLIENTS" (Z_15TRUSTEDBYCLIENTS, Z_15TRUSTEDCLIENTS)
            Z_14TRUSTEDCLIENTS_Z_14TRUSTEDCLIENTS_INDEX ON "Z_15TRUSTEDBYCLIENTS" (Z_15TRUSTEDCLIENTS, Z_15TRUSTEDBYCLIENTS)
            Z_15IGNOREDCLIENTS_Z_15IGNOREDCLIENTS_INDEX ON "Z_15IGNOREDCLIENTS" (Z_15IGNOREDCLIENTS, Z_15IGNOREDBYCLIENTS)
            Z_15TRUSTEDBYCLIENTS_Z_15TRUSTEDBYCLIENTS_INDEX ON Z_15TRUSTEDBYCLIENTS (Z_15TRUSTEDBYCLIENTS, Z_15TRUSTEDCLIENTS)
            """
        let indexes = "SELECT substr(sql, 14) FROM sqlite_master WHERE type = 'index' AND tbl_name GLOB 'Z_15*CLIENTS' ORDER BY name"
        XCTAssertEqual(try SQLiteShell.read(moved, indexes), movedIndexes)
        let withName = try Self.userClientModel(in: folder, named: "WithName", attributes: Self.userClientAttributes + [("needsSessionMigration", "Boolean")],
                                                fillers: 11, userAttribute: true)
        let named = folder.appendingPathComponent("named.sqlite").path
        let namedRun = try CLI.run(["migrate", moved, "--model", withName, "--to", named])
        XCTAssertEqual(namedRun.status, 0, namedRun.stderr)
        XCTAssertEqual(try SQLiteShell.read(named, indexes), movedIndexes)
    }

    /// Photos (PhotoScript's store, framework 1335): `ZASSET` has four order keys in neither
    /// name order (cloudFeedAssetsEntry, then dayHighlightBeingCollageAssets Private, Mixed,
    /// Shared), and GenericAlbum's `albumLists` and `keyAssets` name their join tables though
    /// AlbumList and Asset sort before GenericAlbum (its sub-entity Album is visited first). A
    /// store `create` lays out from the store's model has the same.
    func testPhotosOrderKeysAndJoinTablesAreCoreDatas() throws {
        let (genuine, store, _) = try createdFromTheModelOf("RhetTbull_PhotoScript/Photos.sqlite")
        for table in ["ZASSET", "ZCLOUDSHAREDCOMMENT"] {
            let orderKeys = "SELECT group_concat(name, ' ') FROM (SELECT name FROM pragma_table_info('\(table)') WHERE name GLOB 'Z_FOK_*' ORDER BY cid)"
            XCTAssertEqual(try SQLiteShell.read(store, orderKeys), try SQLiteShell.read(genuine, orderKeys), table)
        }
        XCTAssertEqual(try SQLiteShell.read(genuine, "SELECT group_concat(name, ' ') FROM (SELECT name FROM pragma_table_info('ZASSET') WHERE name GLOB 'Z_FOK_*' ORDER BY cid)"),
                       "Z_FOK_CLOUDFEEDASSETSENTRY Z_FOK_DAYHIGHLIGHTBEINGCOLLAGEASSETSPRIVATE Z_FOK_DAYHIGHLIGHTBEINGCOLLAGEASSETSMIXED Z_FOK_DAYHIGHLIGHTBEINGCOLLAGEASSETSSHARED")
        let joins = "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*' ORDER BY name)"
        XCTAssertEqual(try SQLiteShell.read(store, joins), try SQLiteShell.read(genuine, joins))
        XCTAssertTrue(try SQLiteShell.read(store, joins).contains("Z_29ALBUMLISTS Z_29KEYASSETS"))
    }

    /// Wire's UserClient attributes up to 2.95.0, by name and type.
    static let userClientAttributes: [(String, String)] = [
        ("activationAddress", "String"), ("activationDate", "Date"), ("activationLocationLatitude", "Double"),
        ("activationLocationLongitude", "Double"), ("apsDecryptionKey", "Binary"), ("apsVerificationKey", "Binary"),
        ("deviceClass", "String"), ("discoveryDate", "Date"), ("fingerprint", "Binary"), ("label", "String"),
        ("markedToDelete", "Boolean"), ("model", "String"), ("modifiedKeys", "Transformable"),
        ("needsToBeUpdatedFromBackend", "Boolean"), ("needsToNotifyOtherUserAboutSessionReset", "Boolean"),
        ("needsToNotifyUser", "Boolean"), ("needsToUpdateCapabilities", "Boolean"), ("needsToUploadSignalingKeys", "Boolean"),
        ("numberOfKeysRemaining", "Integer 32"), ("preKeysRangeMax", "Integer 64"), ("pushToken", "Binary"),
        ("remoteIdentifier", "String"), ("type", "String"),
    ]

    /// Ten entities before Message make it entity 11 (`fillers` of them); SystemMessage is its sub-entity, then
    /// User and UserClient (14) with UserClient's relationships as Wire's model has them.
    static func userClientModel(in folder: URL, named name: String, attributes: [(String, String)], fillers: Int = 10, userAttribute: Bool = false) throws -> String {
        let url = folder.appendingPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        func relationship(_ name: String, to destination: String, inverse: String, toMany: Bool = true, transient: Bool = false) -> String {
            "<relationship name=\"\(name)\" optional=\"YES\"" + (transient ? " transient=\"YES\"" : "") + (toMany ? " toMany=\"YES\"" : " maxCount=\"1\"")
                + " deletionRule=\"Nullify\" destinationEntity=\"\(destination)\" inverseName=\"\(inverse)\" inverseEntity=\"\(destination)\"/>"
        }
        let fillers = (0..<fillers).map { "<entity name=\"Filler\($0)\"><attribute name=\"value\" optional=\"YES\" attributeType=\"String\"/></entity>" }
        let userClient = attributes.map { "<attribute name=\"\($0.0)\" optional=\"YES\" attributeType=\"\($0.1)\"/>" } + [
            relationship("addedOrRemovedInSystemMessages", to: "SystemMessage", inverse: "clients"),
            relationship("discoveredByMessage", to: "Message", inverse: "discoveredClients", toMany: false),
            relationship("ignoredByClients", to: "UserClient", inverse: "ignoredClients"),
            relationship("ignoredClients", to: "UserClient", inverse: "ignoredByClients"),
            relationship("messagesMissingRecipient", to: "Message", inverse: "missingRecipients", transient: true),
            relationship("missedByClient", to: "UserClient", inverse: "missingClients", toMany: false),
            relationship("missingClients", to: "UserClient", inverse: "missedByClient"),
            relationship("trustedByClients", to: "UserClient", inverse: "trustedClients"),
            relationship("trustedClients", to: "UserClient", inverse: "trustedByClients"),
            relationship("user", to: "User", inverse: "clients", toMany: false),
        ]
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            \(fillers.joined(separator: "\n"))
            <entity name="Message">
                \(relationship("discoveredClients", to: "UserClient", inverse: "discoveredByMessage"))
                \(relationship("missingRecipients", to: "UserClient", inverse: "messagesMissingRecipient"))
            </entity>
            <entity name="SystemMessage" parentEntity="Message">
                \(relationship("clients", to: "UserClient", inverse: "addedOrRemovedInSystemMessages"))
            </entity>
            <entity name="User">
                \(userAttribute ? "<attribute name=\"name\" optional=\"YES\" attributeType=\"String\"/>" : "")
                \(relationship("clients", to: "UserClient", inverse: "user"))
            </entity>
            <entity name="UserClient">
                \(userClient.joined(separator: "\n    "))
            </entity>
            </model>
            """
        try Data(xml.utf8).write(to: url.appendingPathComponent("contents"))
        return url.path
    }
}

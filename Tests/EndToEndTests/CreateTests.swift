import Foundation
import XCTest

/// `create`: a new, empty store that Core Data opens with the model as it is, laid out as
/// Core Data lays one out (compared with a store Core Data wrote for the same model).
final class CreateTests: XCTestCase {
    func testAnEmptyStoreForTheExampleModel() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = folder.appendingPathComponent("New.sqlite").path
        let model = Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path
        let created = try CLI.run(["create", store, "--model", model])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertTrue(created.stdout.hasPrefix("created \(store): 4 entities, store UUID "), created.stdout)
        // Every version hash is the one Core Data computes, so it opens without a migration.
        let hashes = try XCTUnwrap(CLI.json(["model", store, "hashes", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(hashes.count, 4)
        XCTAssertTrue(hashes.allSatisfy { $0["match"] as? Bool == true && $0["stored"] as? String == $0["computed"] as? String }, "\(hashes)")
        let example = try XCTUnwrap(CLI.json(["model", Fixtures.packageRoot.appendingPathComponent("Examples/People.sqlite").path, "hashes",
                                              "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(hashes.map { $0["stored"] as? String }, example.map { $0["stored"] as? String })
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA journal_mode"), "wal")
        let doctor = try CLI.run(["doctor", store])
        XCTAssertEqual(doctor.status, 0, doctor.stdout)
        // Empty, and every command reads it.
        let export = try XCTUnwrap(CLI.json(["export", store]) as? [String: Any])
        XCTAssertEqual((export["entities"] as? [[String: Any]])?.allSatisfy { ($0["objects"] as? [Any])?.isEmpty == true }, true)
        XCTAssertEqual(try CLI.run(["count", store, "Person"]).stdout, "0\n")

        let again = try CLI.run(["create", store, "--model", model])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("exists: create makes a new store and never overwrites one"), again.stderr)
        let noModel = try CLI.run(["create", folder.appendingPathComponent("Other.sqlite").path, "--model", folder.appendingPathComponent("none").path])
        XCTAssertEqual(noModel.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Other.sqlite").path))
        XCTAssertEqual(try CLI.run(["create", store]).status, 64)
        // A model Xcode would not compile: refused, and no file left behind.
        let twice = folder.appendingPathComponent("Twice.xcdatamodel")
        try FileManager.default.createDirectory(at: twice, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="A" representedClassName="A"><attribute name="x" attributeType="String"/></entity>
            <entity name="A" representedClassName="A"><attribute name="y" attributeType="String"/></entity>
            </model>
            """.utf8).write(to: twice.appendingPathComponent("contents"))
        let invalid = try CLI.run(["create", folder.appendingPathComponent("Twice.sqlite").path, "--model", twice.path])
        XCTAssertEqual(invalid.status, 1)
        XCTAssertTrue(invalid.stderr.contains("the model names the entity A twice"), invalid.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Twice.sqlite").path))
    }

    /// A fetch index the model declares is created as Core Data creates it: CoreDataPlus's
    /// SampleModel V2 store holds `Z_Car_byMakerAndNumberPlate`, byte for byte.
    func testAFetchIndexIsCreatedAsCoreDataCreatesIt() throws {
        let (original, store, _) = try createdFromTheModelOf("alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V2.sqlite")
        let indexes = "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'Z%' AND sql IS NOT NULL ORDER BY name"
        XCTAssertEqual(try SQLiteShell.read(store, indexes), try SQLiteShell.read(original, indexes))
        XCTAssertTrue(try SQLiteShell.read(store, indexes).contains("CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZCAR (ZMAKER COLLATE BINARY ASC, ZNUMBERPLATE COLLATE BINARY ASC)"))
    }

    /// A fetch index an entity lists twice is made once: the model caches of Wire's 2.52.0,
    /// 2.60.0 and 2.67.0 list Message's `destructionDate` and `expirationDate` twice, and Core
    /// Data's stores have one `Z_Message_destructionDate`. (`create` and `migrate` stopped at
    /// SQLite's "index already exists" before.)
    func testAFetchIndexListedTwiceIsMadeOnce() throws {
        let store = try createdStore(named: "Twice", model: """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Message" representedClassName="Message">
                <attribute name="destructionDate" optional="YES" attributeType="Date"/>
                <fetchIndex name="destructionDate">
                    <fetchIndexElement property="destructionDate" type="Binary" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="destructionDate">
                    <fetchIndexElement property="destructionDate" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            </model>
            """)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"),
                       "CREATE INDEX Z_Message_destructionDate ON ZMESSAGE (ZDESTRUCTIONDATE COLLATE BINARY ASC)")
    }

    /// A store Core Data wrote, its model exported, and a store created from that model: the
    /// same version hashes in the metadata, the same tables, columns and unique indexes.
    func testTheSchemaOfAStoreCoreDataWrote() throws {
        let (original, store, stderr) = try createdFromTheModelOf("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V2.sqlite")
        // Book.pagesCount counts a to-many: its triggers are written, so nothing is warned of.
        XCTAssertFalse(stderr.contains("derived attributes"), stderr)

        func stored(_ path: String) throws -> [String] {
            try XCTUnwrap(CLI.json(["model", path, "hashes", "--format", "json"]) as? [[String: Any]]).map { "\($0["entity"] ?? "") \($0["stored"] ?? "")" }
        }
        XCTAssertEqual(try stored(store), try stored(original))
        // Columns in Core Data's order (GraphicNovel's Boolean after Book's to-one key, before
        // Book's date, decimal, string, UUID, transformable), and the unique indexes.
        let columns = "SELECT m.name || '.' || p.name || ' ' || p.type FROM sqlite_master m, pragma_table_info(m.name) p "
            + "WHERE m.type = 'table' AND m.name LIKE 'Z%' AND m.name NOT LIKE 'Z_MODELCACHE' ORDER BY m.name, p.cid"
        XCTAssertEqual(try SQLiteShell.read(store, columns), try SQLiteShell.read(original, columns))
        let unique = "SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'Z\\_%\\_UNIQUE\\_%' ESCAPE '\\' AND tbl_name NOT LIKE 'A%' ORDER BY name"
        XCTAssertEqual(try SQLiteShell.read(store, unique), try SQLiteShell.read(original, unique))
        XCTAssertFalse(try SQLiteShell.read(store, unique).isEmpty)
        // The derived count's five triggers, byte for byte as Core Data wrote them.
        let triggers = "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid"
        XCTAssertEqual(try SQLiteShell.read(store, triggers), try SQLiteShell.read(original, triggers))
        XCTAssertEqual(try SQLiteShell.read(store, triggers).split(separator: "\n").count, 5)
    }

    /// Stores whose schema is not the one their model gives a new store, with the reason:
    /// each is a store Core Data migrated, or one an older Core Data wrote.
    static let notFreshLayouts: [String: String] = [
        "RhetTbull_PhotoScript/Photos.sqlite": "migrated through many versions: tables and columns renamed in place, index names stale",
        "tkanarsky_osxphotos/Photos-14.6.0.sqlite": "migrated through many versions: tables and columns renamed in place, index names stale",
        "alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V2.sqlite":
            "migrated from V1: Z_PRIMARYKEY keeps the renamed entity's old name (ExpensiveSportCar, now LuxuryCar)",
        "log2timeline_plaso/knowledgec-10.13.db": "macOS 10.13's Core Data: the history tables of that time, no index for a uniqueness constraint",
    ]

    /// Tables of fresh-layout stores that a later Core Data altered in place: `ALTER TABLE …
    /// ADD COLUMN` put the columns of the attributes a new model version added at the end.
    static let columnsAddedInPlace: [String: (table: String, added: Int)] = [
        "RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite": ("ZICCLOUDSYNCINGOBJECT", 10),
    ]

    /// `create` from the model of each genuine store (the model its cache holds, exported as
    /// a model file) lays out what Core Data laid out: the same tables, each `CREATE TABLE`
    /// to the letter (its columns in Core Data's order), the same indexes to the letter (names
    /// and SQL), the same `Z_PRIMARYKEY` entities, the same version hashes.
    func testCreateLaysOutEachGenuineStoreAsCoreDataDid() throws {
        var compared = 0
        for relative in try Fixtures.everyStore where Self.notFreshLayouts[relative] == nil {
            let copy = try Fixtures.copy(relative, into: try Fixtures.temporaryDirectory(self)).path
            guard try SQLiteShell.read(copy, "SELECT count(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'") == "1" else { continue }
            let history = try SQLiteShell.read(copy, "SELECT count(*) FROM sqlite_master WHERE name = 'ATRANSACTION'") == "1"
            let folder = try Fixtures.temporaryDirectory(self)
            let exported = folder.appendingPathComponent("model")
            XCTAssertEqual(try CLI.run(["model", copy, "export", exported.path]).status, 0, relative)
            let bundle = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: exported.path).first { $0.hasSuffix(".xcdatamodeld") })
            let store = folder.appendingPathComponent("Created.sqlite").path
            let created = try CLI.run(["create", store, "--model", exported.appendingPathComponent(bundle).path] + (history ? ["--history"] : []))
            XCTAssertEqual(created.status, 0, "\(relative): \(created.stderr)")
            guard created.status == 0 else { continue }
            let columns = "SELECT m.name || '.' || p.name || ' ' || p.type FROM sqlite_master m, pragma_table_info(m.name) p "
                + "WHERE m.type = 'table' AND m.name NOT IN ('Z_MODELCACHE', 'sqlite_sequence') ORDER BY 1"
            let indexes = "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
            let entities = "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT"
            for (what, query) in [("columns", columns), ("indexes", indexes), ("Z_PRIMARYKEY", entities)] {
                XCTAssertEqual(try SQLiteShell.read(store, query), try SQLiteShell.read(copy, query), "\(relative): \(what)")
            }
            // Each table's CREATE TABLE as Core Data wrote it, its columns in Core Data's order
            // (`ColumnSlot`), but for a table a migration added columns to at the end: there,
            // the columns before them in our order.
            let altered = Self.columnsAddedInPlace[relative]
            let tables = "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' AND name != '\(altered?.table ?? "")' ORDER BY name"
            XCTAssertEqual(try SQLiteShell.read(store, tables), try SQLiteShell.read(copy, tables), "\(relative): CREATE TABLE")
            if let altered {
                let order = "SELECT name FROM pragma_table_info('\(altered.table)') ORDER BY cid"
                let theirs = try SQLiteShell.read(copy, order).split(separator: "\n"), ours = try SQLiteShell.read(store, order).split(separator: "\n")
                let added = Set(theirs.suffix(altered.added))
                XCTAssertEqual(Array(theirs.dropLast(altered.added)), ours.filter { !added.contains($0) }, "\(relative): \(altered.table)")
            }
            func hashes(_ path: String) throws -> [String] {
                try XCTUnwrap(CLI.json(["model", path, "hashes", "--format", "json"]) as? [[String: Any]]).map { "\($0["entity"] ?? "") \($0["stored"] ?? "")" }
            }
            XCTAssertEqual(try hashes(store), try hashes(copy), "\(relative): version hashes")
            compared += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 10)
    }

    /// Join tables as Core Data names them where the genuine stores show it: two relationships
    /// of one entity name theirs after the later name (`Z_4BLOCKING(Z_4BLOCKEDBY, Z_4BLOCKING)`),
    /// and a join-table column whose name another join table took first gets `1`
    /// (Photos 14.6: Memory's `Z_3REPRESENTATIVEASSETS`, then Suggestion's `…1`).
    func testJoinTablesAreNamedAsCoreDataNamesThem() throws {
        let store = try createdStore(named: "Joins", model: """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Asset" representedClassName="Asset">
                <relationship name="memoriesBeingRepresentativeAssets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Memory" inverseName="representativeAssets" inverseEntity="Memory"/>
                <relationship name="suggestionsBeingRepresentativeAssets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Suggestion" inverseName="representativeAssets" inverseEntity="Suggestion"/>
            </entity>
            <entity name="Memory" representedClassName="Memory">
                <relationship name="representativeAssets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Asset" inverseName="memoriesBeingRepresentativeAssets" inverseEntity="Asset"/>
            </entity>
            <entity name="Suggestion" representedClassName="Suggestion">
                <relationship name="representativeAssets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Asset" inverseName="suggestionsBeingRepresentativeAssets" inverseEntity="Asset"/>
            </entity>
            <entity name="User" representedClassName="User">
                <relationship name="blockedBy" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="blocking" inverseEntity="User"/>
                <relationship name="blocking" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="blockedBy" inverseEntity="User"/>
            </entity>
            </model>
            """)
        XCTAssertEqual(try joinTables(store), [
            "Z_1MEMORIESBEINGREPRESENTATIVEASSETS Z_1REPRESENTATIVEASSETS,Z_2MEMORIESBEINGREPRESENTATIVEASSETS",
            "Z_1SUGGESTIONSBEINGREPRESENTATIVEASSETS Z_1REPRESENTATIVEASSETS1,Z_3SUGGESTIONSBEINGREPRESENTATIVEASSETS",
            "Z_4BLOCKING Z_4BLOCKEDBY,Z_4BLOCKING",
        ])
        // And the store reads its own join tables back: a relationship set both ways.
        let saved = try CLI.run([store, "-c", "insert User", "-c", "insert User", "-c", "save"])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let linked = try CLI.run([store, "-c", "update User/p1 blocking={User/p2}", "-c", "save", "-c", "get User/p2 --format json"])
        XCTAssertEqual(linked.status, 0, linked.stderr)
        XCTAssertTrue(linked.stdout.contains("User/p1"), linked.stdout)
        // (Each column holds the objects its relationship leads to: p2, whom p1 is blocking.)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT Z_4BLOCKEDBY || ',' || Z_4BLOCKING FROM Z_4BLOCKING"), "1,2")
    }

    /// Two join tables whose columns would share a name take turns by the names of the
    /// entities that name them, not by their numbers. Wire's stores (2.42.0 to 2.101.0, Core
    /// Data's own): SystemMessage (a sub-entity of Message, entity 11) and Reaction (entity 14)
    /// both have `users` to User (17); Core Data gives Reaction `Z_17USERS` and SystemMessage
    /// `Z_17USERS1`: `Z_11USERS (Z_11SYSTEMMESSAGES, Z_17USERS1)`, `Z_14USERS (Z_14REACTIONS,
    /// Z_17USERS)`. Photos' Memory before Suggestion agrees.
    func testJoinColumnsTakeTheirSuffixInTheOrderOfEntityNames() throws {
        let store = try createdStore(named: "Messages", model: """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Message" representedClassName="ZMMessage">
                <attribute name="text" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Reaction" representedClassName="Reaction">
                <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="reactions" inverseEntity="User"/>
            </entity>
            <entity name="SystemMessage" representedClassName="ZMSystemMessage" parentEntity="Message">
                <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="systemMessages" inverseEntity="User"/>
            </entity>
            <entity name="User" representedClassName="ZMUser">
                <relationship name="reactions" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Reaction" inverseName="users" inverseEntity="Reaction"/>
                <relationship name="systemMessages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="SystemMessage" inverseName="users" inverseEntity="SystemMessage"/>
            </entity>
            </model>
            """)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT Z_ENT || ' ' || Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT").split(separator: "\n"),
                       ["1 Message", "2 SystemMessage", "3 Reaction", "4 User"], "the sub-entity numbered before Reaction, as in Wire's stores")
        XCTAssertEqual(try joinTables(store), ["Z_2USERS Z_2SYSTEMMESSAGES,Z_4USERS1", "Z_3USERS Z_3REACTIONS,Z_4USERS"])
    }

    /// A store `create` makes from a model's contents XML, in the test's folder.
    /// Columns stand in Core Data's order: by kind first (integers and Booleans, to-one keys,
    /// order keys, dates and doubles, decimals, strings, UUIDs, transformables), then entity by
    /// entity, then by name. Screen Time's organization settings, an abstract root with three
    /// sub-entities, as its store (plaso's `RMAdminStore-Local.sqlite`) has the table: the
    /// root's integers, Cloud's keys, Family's Booleans and keys, Local's keys, and only then the
    /// root's string.
    func testColumnsStandInCoreDatasOrder() throws {
        let settings = { (name: String, extra: String) in
            """
            <entity name="\(name)OrganizationSettings" parentEntity="CoreOrganizationSettings">\(extra)
                <relationship name="organization" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="\(name)Organization" inverseName="settings" inverseEntity="\(name)Organization"/>
                <relationship name="user" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="CoreUser" inverseName="\(name.lowercased())Settings" inverseEntity="CoreUser"/>
            </entity>
            <entity name="\(name)Organization" parentEntity="CoreOrganization">
                <relationship name="settings" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="\(name)OrganizationSettings" inverseName="organization" inverseEntity="\(name)OrganizationSettings"/>
            </entity>
            """
        }
        let store = try createdStore(named: "ScreenTime", model: """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="CoreOrganization" isAbstract="YES"/>
                <entity name="CoreOrganizationSettings" isAbstract="YES">
                    <attribute name="allLimitsEnabled" attributeType="Boolean" defaultValueString="YES"/>
                    <attribute name="communicationPolicy" attributeType="Integer 64" defaultValueString="0"/>
                    <attribute name="communicationWhileLimitedPolicy" attributeType="Integer 64" defaultValueString="0"/>
                    <attribute name="contactManagementState" attributeType="Integer 64" defaultValueString="0"/>
                    <attribute name="needsToSetPasscode" attributeType="Boolean" defaultValueString="NO"/>
                    <attribute name="sortKey" optional="YES" attributeType="UUID"/>
                    <attribute name="uniqueIdentifier" optional="YES" attributeType="String"/>
                </entity>
                <entity name="CoreUser">
                    <relationship name="cloudSettings" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="CloudOrganizationSettings" inverseName="user" inverseEntity="CloudOrganizationSettings"/>
                    <relationship name="familySettings" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="FamilyOrganizationSettings" inverseName="user" inverseEntity="FamilyOrganizationSettings"/>
                    <relationship name="localSettings" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="LocalOrganizationSettings" inverseName="user" inverseEntity="LocalOrganizationSettings"/>
                </entity>
                \(settings("Cloud", """
                    <attribute name="passcode" optional="YES" attributeType="String"/>
                    <attribute name="recoveryAltDSID" optional="YES" attributeType="String"/>
                """))
                \(settings("Family", """
                    <attribute name="isDirty" attributeType="Boolean" defaultValueString="NO"/>
                    <attribute name="isManaged" attributeType="Boolean" defaultValueString="NO"/>
                    <attribute name="passcode" optional="YES" attributeType="String"/>
                    <attribute name="shareWebUsage" attributeType="Boolean" defaultValueString="YES"/>
                    <attribute name="versionVector" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
                """))
                \(settings("Local", """
                    <attribute name="passcode" optional="YES" attributeType="String"/>
                    <attribute name="recoveryAltDSID" optional="YES" attributeType="String"/>
                """))
            </model>
            """)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT sql FROM sqlite_master WHERE name = 'ZCOREORGANIZATIONSETTINGS'"),
                       "CREATE TABLE ZCOREORGANIZATIONSETTINGS ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZALLLIMITSENABLED INTEGER, "
                       + "ZCOMMUNICATIONPOLICY INTEGER, ZCOMMUNICATIONWHILELIMITEDPOLICY INTEGER, ZCONTACTMANAGEMENTSTATE INTEGER, ZNEEDSTOSETPASSCODE INTEGER, "
                       + "ZORGANIZATION INTEGER, ZUSER INTEGER, ZISDIRTY INTEGER, ZISMANAGED INTEGER, ZSHAREWEBUSAGE INTEGER, ZORGANIZATION1 INTEGER, "
                       + "ZUSER1 INTEGER, ZORGANIZATION2 INTEGER, ZUSER2 INTEGER, ZUNIQUEIDENTIFIER VARCHAR, ZPASSCODE VARCHAR, ZRECOVERYALTDSID VARCHAR, "
                       + "ZPASSCODE1 VARCHAR, ZPASSCODE2 VARCHAR, ZRECOVERYALTDSID1 VARCHAR, ZSORTKEY BLOB, ZVERSIONVECTOR BLOB )")
    }

    func createdStore(named name: String, model xml: String) throws -> String {
        let folder = try Fixtures.temporaryDirectory(self)
        let model = folder.appendingPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: model.appendingPathComponent("contents"))
        let store = folder.appendingPathComponent(name + ".sqlite").path
        let created = try CLI.run(["create", store, "--model", model.path])
        XCTAssertEqual(created.status, 0, created.stderr)
        return store
    }

    /// Each join table with its columns: `Z_4BLOCKING Z_4BLOCKEDBY,Z_4BLOCKING`.
    func joinTables(_ store: String) throws -> [Substring] {
        try SQLiteShell.read(store, "SELECT m.name || ' ' || group_concat(p.name, ',') FROM sqlite_master m, pragma_table_info(m.name) p "
                             + "WHERE m.type = 'table' AND m.name GLOB 'Z_[0-9]*' GROUP BY m.name ORDER BY m.name").split(separator: "\n")
    }

    /// A sub-entity that declares again a property it inherits (FuzzModelXML's find: a cache
    /// keyed by name loses one of the two) is a model Core Data would not load: refused by
    /// `create` and by `model diff` alike, in one line.
    func testAPropertyDeclaredAgainBySubEntityIsRefused() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let model = folder.appendingPathComponent("Again.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.packageRoot.appendingPathComponent("FuzzTesting/FailCases/ModelXML/property-declared-again-by-a-sub-entity.xml"),
                                         to: model.appendingPathComponent("contents"))
        let store = folder.appendingPathComponent("Again.sqlite").path
        let created = try CLI.run(["create", store, "--model", model.path])
        XCTAssertEqual(created.status, 1)
        XCTAssertEqual(created.stderr, "cdinspect: error: cannot read the model: Photo declares byteCount again, which it inherits from Item\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
        let example = try Fixtures.exampleStore(in: folder).path
        let diff = try CLI.run(["model", example, "diff", model.path])
        XCTAssertEqual(diff.status, 1)
        XCTAssertTrue(diff.stderr.hasSuffix("Photo declares byteCount again, which it inherits from Item\n"), diff.stderr)
    }
}

import Foundation
import ManagedStore
import XCTest

/// `migrate`: Core Data's migration run here, proven against the stores Core Data wrote at
/// each version of the fixtures' version series (docs/migration.md).
final class MigrateTests: XCTestCase {
    static let columns = "SELECT m.name || '.' || p.name || ' ' || p.type FROM sqlite_master m, pragma_table_info(m.name) p "
        + "WHERE m.type = 'table' AND m.name NOT IN ('Z_MODELCACHE', 'sqlite_sequence') ORDER BY 1"
    static let indexesAndTriggers = "SELECT name || ': ' || sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY name"
    static let entities = "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT"

    /// The schema of `store` is the schema of `expected` (columns by name with their types,
    /// indexes and triggers to the letter, `Z_PRIMARYKEY`'s entities), and its stored version
    /// hashes are `expected`'s.
    /// `kept`: the indexes the migration keeps from the source besides (`name: sql`), which a
    /// new store has not.
    func assertSameSchema(_ store: String, _ expected: String, _ what: String, kept: [String] = [],
                          file: StaticString = #filePath, line: UInt = #line) throws {
        for (part, query) in [("columns", Self.columns), ("indexes", Self.indexesAndTriggers), ("Z_PRIMARYKEY", Self.entities)] {
            var wanted = try SQLiteShell.read(expected, query)
            if part == "indexes" && !kept.isEmpty { wanted = (wanted.split(separator: "\n").map(String.init) + kept).sorted().joined(separator: "\n") }
            XCTAssertEqual(try SQLiteShell.read(store, query), wanted, "\(what): \(part)", file: file, line: line)
        }
        XCTAssertEqual(try hashes(store), try hashes(expected), "\(what): version hashes", file: file, line: line)
        let doctor = try CLI.run(["doctor", store])
        XCTAssertEqual(doctor.status, 0, "\(what): doctor finds the migrated store healthy: \(doctor.stdout)", file: file, line: line)
    }

    /// A model of `entities` (their XML) as `folder/NAME.xcdatamodel`; its path.
    func writtenModel(_ name: String, in folder: URL, _ entities: String) throws -> String {
        let url = folder.appendingPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            \(entities)
            </model>
            """.utf8).write(to: url.appendingPathComponent("contents"))
        return url.path
    }

    func hashes(_ path: String) throws -> [String] {
        try XCTUnwrap(CLI.json(["model", path, "hashes", "--format", "json"]) as? [[String: Any]]).map { "\($0["entity"] ?? "") \($0["stored"] ?? "")" }
    }

    /// Rows written per entity, from `migrate --format json`.
    func written(_ answer: Any) throws -> [String: Int] {
        let steps = try XCTUnwrap((answer as? [String: Any])?["steps"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: steps.compactMap { s in (s["written"] as? Int).map { (s["entity"] as? String ?? "", $0) } })
    }

    func model(_ relative: String) throws -> String { try Fixtures.directory.appendingPathComponent(relative).path }

    /// CoreDataPlus's SampleModel V2 store is V1 migrated by Core Data (the same store UUID):
    /// migrating V1 here gives it, row for row: every key, version and value the mapping
    /// keeps, the renamed entity's old name in `Z_PRIMARYKEY`, the same metadata.
    func testSampleModelV1MigratesToTheStoreCoreDataMigratedItTo() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let v1 = try Fixtures.copy("alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V1.sqlite", into: folder).path
        let v2 = try Fixtures.copy("alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V2.sqlite", into: folder).path
        let out = folder.appendingPathComponent("Migrated.sqlite").path
        let model = try model("alemar11_CoreDataPlus/SampleModel__SampleModel.xcdatamodeld__SampleModel2.xcdatamodel__contents")
        let before = try SQLiteShell.read(v1, "SELECT count(*) FROM ZCAR") + " " + (try SQLiteShell.read(v1, "SELECT count(*) FROM ZPERSON"))
        let answer = try CLI.json(["migrate", v1, "--model", model, "--to", out, "--format", "json"])
        XCTAssertEqual(try written(answer), ["Car": 115, "SportCar": 5, "LuxuryCar": 5, "Person": 20])
        XCTAssertEqual(before, "125 20", "the source is as it was")
        try assertSameSchema(out, v2, "SampleModel V1 → V2")
        for query in ["SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT",
                      "SELECT Z_PK, Z_ENT, Z_OPT, ZOWNER, ZISLIMITEDEDITION, ZMARKEDFORDELETIONASOF, ZMAKER, ZMODEL, ZNUMBERPLATE FROM ZCAR ORDER BY Z_PK",
                      "SELECT Z_PK, Z_ENT, Z_OPT, ZUPDATEDAT, ZFIRSTNAME, ZLASTNAME FROM ZPERSON ORDER BY Z_PK",
                      "SELECT Z_VERSION, Z_UUID FROM Z_METADATA"] {
            XCTAssertEqual(try SQLiteShell.read(out, query), try SQLiteShell.read(v2, query), query)
        }
        // The metadata Core Data wrote, key for key, the digest of the hashes included.
        let metadata = { (path: String) throws -> [String] in
            try XCTUnwrap(CLI.json(["info", path, "--format", "json"]) as? [String: Any]).filter { $0.key.hasPrefix("metadata.") }
                .map { "\($0.key)=\($0.value)" }.sorted()
        }
        XCTAssertEqual(try metadata(out), try metadata(v2))
        let digest = { (path: String) throws -> String? in
            let store = try PersistentStore(path: path, options: .init(readonly: true))
            defer { store.close() }
            return store.metadata?["NSStoreModelVersionHashesDigest"]?.stringValue
        }
        XCTAssertEqual(try digest(out), try digest(v2))
        XCTAssertNotNil(try digest(v2))
        // Core Data's migration caches the new model without class names ($null in V2's
        // cache, where V1's names them); `migrate` writes the same.
        for path in [out, v2] {
            let cached = try CLI.run(["model", path])
            XCTAssertEqual(cached.status, 0)
            XCTAssertFalse(cached.stdout.contains("representedClassName="), "\(path): \(cached.stdout)")
        }
        XCTAssertTrue(try CLI.run(["model", v1]).stdout.contains(#"representedClassName="Car""#))
        // What the migration drops is named with its count.
        let plan = try XCTUnwrap(CLI.json(["migrate", v1, "--model", model, "--dry-run", "--format", "json"]) as? [String: Any])
        let drops = try XCTUnwrap(plan["drops"] as? [[String: Any]]).map { "\($0["entity"] ?? "").\($0["property"] ?? "") \($0["count"] ?? "")" }
        XCTAssertEqual(drops.sorted(), ["Car.color 0", "Person.id 20"])
        // It never writes over a file.
        let again = try CLI.run(["migrate", v1, "--model", model, "--to", out])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("exists: a migration writes a new store and never replaces one"), again.stderr)
    }

    /// SampleModel2 V1 → V2 (`cover` renamed `frontCover` by renaming identifier, a removed
    /// attribute, derived counts, persistent history): the schema of Core Data's own V2 store,
    /// its derived-count triggers included, with every row and the history carried.
    func testSampleModel2V1MigratesToTheSchemaOfV2() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let v1 = try Fixtures.copy("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite", into: folder).path
        let v2 = try Fixtures.copy("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V2.sqlite", into: folder).path
        let exported = folder.appendingPathComponent("model")
        XCTAssertEqual(try CLI.run(["model", v2, "export", exported.path]).status, 0)
        let bundle = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: exported.path).first { $0.hasSuffix(".xcdatamodeld") })
        let out = folder.appendingPathComponent("Migrated.sqlite").path
        let answer = try CLI.json(["migrate", v1, "--model", exported.appendingPathComponent(bundle).path, "--to", out, "--format", "json"])
        var counts: [String: Int] = [:]
        for (entity, id, table) in [("Book", 1, "ZBOOK"), ("GraphicNovel", 2, "ZBOOK"), ("Feedback", 3, "ZFEEDBACK"), ("Page", 4, "ZPAGE"), ("Author", 6, "ZWRITER")] {
            counts[entity] = Int(try SQLiteShell.read(v1, "SELECT count(*) FROM \(table) WHERE Z_ENT = \(id)"))
        }
        XCTAssertEqual(try written(answer), counts)
        XCTAssertEqual(counts.values.reduce(0, +), 5468)
        try assertSameSchema(out, v2, "SampleModel2 V1 → V2")
        XCTAssertEqual(try SQLiteShell.read(out, "SELECT Z_PK, hex(ZFRONTCOVER), ZPAGESCOUNT FROM ZBOOK ORDER BY Z_PK"),
                       try SQLiteShell.read(v1, "SELECT Z_PK, hex(ZCOVER), ZPAGESCOUNT FROM ZBOOK ORDER BY Z_PK"))
        for table in ["ACHANGE", "ATRANSACTION", "ATRANSACTIONSTRING"] {
            XCTAssertEqual(try SQLiteShell.read(out, "SELECT count(*) FROM \(table)"), try SQLiteShell.read(v1, "SELECT count(*) FROM \(table)"), table)
        }
        XCTAssertEqual(try SQLiteShell.read(out, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001"), "5468")
    }

    /// wibosco's version 1 → 2 with the app's own mapping model (`hexColor` from
    /// `FUNCTION($source, "valueForKeyPath:", "color")`) gives Core Data's version-2 store's
    /// schema; the inferred mapping gives the same rows where the model says the same (a
    /// renaming identifier), and without one drops the colours, saying how many.
    func testAMappingModelMigratesAsTheInferredMappingDoes() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let v1 = try Fixtures.copy("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite", into: folder).path
        let v2 = try Fixtures.copy("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite", into: folder).path
        let model2 = try model("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_2.xcdatamodel__contents")
        let mapping = Fixtures.packageRoot.appendingPathComponent("Tests/EndToEndTests/Golden/mappings/wibosco/Migration1to2.xcmappingmodel").path
        let byMapping = folder.appendingPathComponent("ByMapping.sqlite").path
        let run = try CLI.run(["migrate", v1, "--model", model2, "--mapping", mapping, "--to", byMapping])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("by the mapping model"), run.stdout)
        try assertSameSchema(byMapping, v2, "wibosco 1 → 2 by its mapping model")
        let colours = "SELECT Z_PK, ZHEXCOLOR, ZDATE, ZPOSTID FROM ZPOST ORDER BY Z_PK"
        XCTAssertEqual(try SQLiteShell.read(byMapping, colours), try SQLiteShell.read(v1, "SELECT Z_PK, ZCOLOR, ZDATE, ZPOSTID FROM ZPOST ORDER BY Z_PK"))

        let renamed = folder.appendingPathComponent("Renamed.xcdatamodel")
        try FileManager.default.createDirectory(at: renamed, withIntermediateDirectories: true)
        let xml = try String(contentsOfFile: model2, encoding: .utf8)
            .replacingOccurrences(of: "<attribute name=\"hexColor\"", with: "<attribute name=\"hexColor\" elementID=\"color\"")
        try Data(xml.utf8).write(to: renamed.appendingPathComponent("contents"))
        let inferred = folder.appendingPathComponent("Inferred.sqlite").path
        XCTAssertEqual(try CLI.run(["migrate", v1, "--model", renamed.path, "--to", inferred]).status, 0)
        XCTAssertEqual(try SQLiteShell.read(inferred, "SELECT * FROM ZPOST ORDER BY Z_PK"), try SQLiteShell.read(byMapping, "SELECT * FROM ZPOST ORDER BY Z_PK"))

        let plan = try XCTUnwrap(CLI.json(["migrate", v1, "--model", model2, "--dry-run", "--format", "json"]) as? [String: Any])
        let drops = try XCTUnwrap(plan["drops"] as? [[String: Any]])
        XCTAssertEqual(drops.map { "\($0["entity"] ?? "").\($0["property"] ?? "") \($0["count"] ?? "")" }, ["Post.color 1001"])
    }

    /// Version 2 → 3 of the same app: its mapping model names a custom policy (refused, by
    /// name, nothing written); without it, the new required to-one `color` fails every row,
    /// as the app's migration would.
    func testACustomPolicyAndRowsTheNewModelRejectAreRefused() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let v2 = try Fixtures.copy("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite", into: folder).path
        let model3 = try model("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_3.xcdatamodel__contents")
        let mapping = Fixtures.packageRoot.appendingPathComponent("Tests/EndToEndTests/Golden/mappings/wibosco/Migration2to3.xcmappingmodel").path
        let out = folder.appendingPathComponent("Out.sqlite").path
        let policy = try CLI.run(["migrate", v2, "--model", model3, "--mapping", mapping, "--to", out])
        XCTAssertEqual(policy.status, 1)
        XCTAssertTrue(policy.stderr.contains("uses the migration policy CoreDataMigration_Example.Post2ToPost3MigrationPolicy"), policy.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))

        let dry = try CLI.run(["migrate", v2, "--model", model3, "--dry-run"])
        XCTAssertEqual(dry.status, 1, "a refused plan exits 1")
        XCTAssertTrue(dry.stdout.contains("Post.color is a new required to-one: no existing row has an object for it"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("5979 rows: Post/p1"), dry.stdout)
        let refused = try CLI.run(["migrate", v2, "--model", model3, "--to", out])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("the migration would fail on the store's rows"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// Where no genuine store of the newer version exists, `create` of the newer model stands
    /// in: wibosco 3 → 4 (a new Boolean with a default) and BookMigration 1 → 2 → 3 (a new
    /// entity, a to-one made a many-to-many under a new name, attributes moved to a new
    /// entity), each step's result laid out as `create` lays out its model.
    func testPairsBuiltWithCreate() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let v3 = try Fixtures.copy("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite", into: folder).path
        let model4 = try model("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_4.xcdatamodel__contents")
        let created4 = folder.appendingPathComponent("Created4.sqlite").path
        XCTAssertEqual(try CLI.run(["create", created4, "--model", model4]).status, 0)
        let out4 = folder.appendingPathComponent("Migrated4.sqlite").path
        let answer = try CLI.json(["migrate", v3, "--model", model4, "--to", out4, "--format", "json"])
        XCTAssertEqual(try written(answer), ["Color": 7995, "Post": 7995])
        XCTAssertEqual((answer as? [String: Any])?["method"] as? String, "alter", "one added attribute: the store's pages, altered")
        try assertSameSchema(out4, created4, "wibosco 3 → 4")
        XCTAssertEqual(try SQLiteShell.read(out4, "SELECT ZHIDE, count(*) FROM ZPOST GROUP BY 1"), "0|7995", "the new attribute takes its default")
        XCTAssertEqual(try SQLiteShell.read(out4, "SELECT count(*) FROM ZPOST p JOIN ZCOLOR c ON p.ZCOLOR = c.Z_PK AND c.ZPOST = p.Z_PK"), "7995")

        // The store holds no model of its own (framework 419): its first migration is told
        // the version it was written with (`SourceModelTests`).
        let book1 = try Fixtures.copy("hwaxxer_BookMigration/Model1.sqlite", into: folder).path
        let model1 = try model("hwaxxer_BookMigration/Model1.xcdatamodel__contents")
        var source = book1
        for version in [2, 3] {
            let model = try model("hwaxxer_BookMigration/Model\(version).xcdatamodel__contents")
            let created = folder.appendingPathComponent("CreatedBook\(version).sqlite").path
            XCTAssertEqual(try CLI.run(["create", created, "--model", model]).status, 0)
            let out = folder.appendingPathComponent("MigratedBook\(version).sqlite").path
            let run = try CLI.run(["migrate", source, "--model", model, "--to", out] + (version == 2 ? ["--source-model", model1] : []))
            XCTAssertEqual(run.status, 0, "Book \(version): \(run.stderr)")
            try assertSameSchema(out, created, "BookMigration → Model\(version)")
            source = out
        }
        XCTAssertEqual(try SQLiteShell.read(source, "SELECT count(*) FROM ZUSER"), try SQLiteShell.read(book1, "SELECT count(*) FROM ZUSER"))
        XCTAssertEqual(try SQLiteShell.read(source, "SELECT Z_PK, ZTITLE FROM ZBOOK ORDER BY 1"), try SQLiteShell.read(book1, "SELECT Z_PK, ZTITLE FROM ZBOOK ORDER BY 1"))
    }

    /// An index the new model still wants keeps the name and SQL the store has, as Core Data's
    /// in-place migration keeps it: Wire's stores carry `ZUSER_ZNORMALIZEDNAME_INDEX ON ZUSER
    /// (ZNORMALIZEDNAME)` (the name before framework 847) through later migrations, where a new
    /// store of the same model has `Z_User_normalizedName`. An index the new model does not want
    /// is not carried, and one it adds gets the layout's name. The table keeps its statement, the
    /// new column added at its end (`KeptTables`). A table that loses a column is made anew, in the
    /// layout's order with the layout's indexes only (Wire's 2.100.0 `ZUSERCLIENT`).
    func testAnIndexTheNewModelStillWantsKeepsItsNameInTheStore() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        func model(_ name: String, _ attributes: String) throws -> String {
            try writtenModel(name, in: folder, "<entity name=\"User\" representedClassName=\"ZMUser\">\n\(attributes)\n</entity>")
        }
        let before = try model("Before", """
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="nickname" optional="YES" attributeType="String"/>
            <attribute name="normalizedName" optional="YES" attributeType="String" indexed="YES"/>
            """)
        let after = try model("After", """
            <attribute name="handle" optional="YES" attributeType="String" indexed="YES"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="nickname" optional="YES" attributeType="String"/>
            <attribute name="normalizedName" optional="YES" attributeType="String" indexed="YES"/>
            <attribute name="score" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
            """)
        let store = folder.appendingPathComponent("Users.sqlite").path
        XCTAssertEqual(try CLI.run(["create", store, "--model", before]).status, 0)
        try SQLiteShell.run(store, """
            DROP INDEX Z_User_normalizedName;
            CREATE INDEX ZUSER_ZNORMALIZEDNAME_INDEX ON ZUSER (ZNORMALIZEDNAME);
            CREATE INDEX ZUSER_ZNAME_INDEX ON ZUSER (ZNAME);
            INSERT INTO ZUSER (Z_PK, Z_ENT, Z_OPT, ZNAME, ZNICKNAME, ZNORMALIZEDNAME) VALUES (1, 1, 1, 'Ada', 'ada', 'ada');
            """)
        let table = "SELECT sql FROM sqlite_master WHERE name = 'ZUSER'"
        let sourceTable = try SQLiteShell.read(store, table)
        let out = folder.appendingPathComponent("Migrated.sqlite").path
        let run = try CLI.run(["migrate", store, "--model", after, "--to", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try SQLiteShell.read(out, "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZUSER' ORDER BY name"), [
            "ZUSER_ZNORMALIZEDNAME_INDEX: CREATE INDEX ZUSER_ZNORMALIZEDNAME_INDEX ON ZUSER (ZNORMALIZEDNAME)",
            "Z_User_handle: CREATE INDEX Z_User_handle ON ZUSER (ZHANDLE COLLATE BINARY ASC)",
        ].joined(separator: "\n"))
        // The source's statement as SQLite rewrites it for each column added, in the layout's order.
        XCTAssertEqual(try SQLiteShell.read(out, table), String(sourceTable.dropLast(2)) + " , ZSCORE INTEGER, ZHANDLE VARCHAR)")
        XCTAssertEqual(try SQLiteShell.read(out, "SELECT ZNAME, ZNORMALIZEDNAME, ZSCORE FROM ZUSER"), "Ada|ada|0")
        // Nothing to migrate against the new model, and the index serves its fetches.
        XCTAssertTrue(try CLI.run(["model", out, "diff", after]).stdout.contains("The models are equivalent."))
        XCTAssertTrue(try CLI.run(["explain", out, "User", "--where", "normalizedName == 'ada'", "--plan"]).stdout.contains("ZUSER_ZNORMALIZEDNAME_INDEX"))

        // Without `nickname`, the table is made anew: the layout's statement and indexes.
        let dropped = try model("Dropped", """
            <attribute name="handle" optional="YES" attributeType="String" indexed="YES"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="normalizedName" optional="YES" attributeType="String" indexed="YES"/>
            <attribute name="score" optional="YES" attributeType="Integer 64" defaultValueString="0"/>
            """)
        let anew = folder.appendingPathComponent("Anew.sqlite").path, created = folder.appendingPathComponent("Created.sqlite").path
        XCTAssertEqual(try CLI.run(["migrate", store, "--model", dropped, "--to", anew]).status, 0)
        XCTAssertEqual(try CLI.run(["create", created, "--model", dropped]).status, 0)
        let indexes = "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZUSER' ORDER BY name"
        XCTAssertEqual(try SQLiteShell.read(anew, indexes), try SQLiteShell.read(created, indexes))
        XCTAssertEqual(try SQLiteShell.read(anew, table), try SQLiteShell.read(created, table))
        XCTAssertEqual(try SQLiteShell.read(anew, table), "CREATE TABLE ZUSER ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZSCORE INTEGER, ZHANDLE VARCHAR, ZNAME VARCHAR, ZNORMALIZEDNAME VARCHAR )")
        XCTAssertEqual(try SQLiteShell.read(anew, "SELECT ZNAME, ZNORMALIZEDNAME, ZSCORE FROM ZUSER"), "Ada|ada|0")
    }

    /// A join table whose entity numbers move is renamed in place by Core Data, its indexes
    /// with it: Wire's 2.88.0 store keeps 2.87.0's `Z_14ADDEDUSERS_Z_22ADDEDUSERS_INDEX` on the
    /// renamed table (`ON "Z_16ADDEDUSERS"`, new column names) beside the layout's own index.
    /// Here a new entity that sorts first moves Book and Tag from 1 and 2 to 2 and 3.
    func testARenamedJoinTableKeepsItsIndexesUnderTheirNames() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        func model(_ name: String, _ extra: String) throws -> String {
            try writtenModel(name, in: folder, """
                \(extra)
                <entity name="Book" representedClassName="Book">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>
                </entity>
                <entity name="Tag" representedClassName="Tag">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
                </entity>
                """)
        }
        let before = try model("Before", "")
        let after = try model("After", #"<entity name="Author" representedClassName="Author"><attribute name="name" optional="YES" attributeType="String"/></entity>"#)
        let store = folder.appendingPathComponent("Books.sqlite").path
        XCTAssertEqual(try CLI.run(["create", store, "--model", before]).status, 0)
        try SQLiteShell.run(store, """
            INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1, 1, 1, 'Dune');
            INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 2, 1, 'sf');
            INSERT INTO Z_1TAGS (Z_1BOOKS, Z_2TAGS) VALUES (1, 1);
            """)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Z_1TAGS'"),
                       "CREATE INDEX Z_1TAGS_Z_2TAGS_INDEX ON Z_1TAGS (Z_2TAGS, Z_1BOOKS)")
        let out = folder.appendingPathComponent("Migrated.sqlite").path
        let run = try CLI.run(["migrate", store, "--model", after, "--to", out])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try SQLiteShell.read(out, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Z_2TAGS' ORDER BY name"), [
            #"CREATE INDEX Z_1TAGS_Z_2TAGS_INDEX ON "Z_2TAGS" (Z_3TAGS, Z_2BOOKS)"#,
            "CREATE INDEX Z_2TAGS_Z_3TAGS_INDEX ON Z_2TAGS (Z_3TAGS, Z_2BOOKS)",
        ].joined(separator: "\n"))
        XCTAssertEqual(try SQLiteShell.read(out, "SELECT Z_2BOOKS || ',' || Z_3TAGS FROM Z_2TAGS"), "1,1")
        XCTAssertEqual(try SQLiteShell.read(out, "PRAGMA integrity_check"), "ok")
        // The table itself renamed in place: its statement as SQLite rewrites it, the name quoted.
        XCTAssertEqual(try SQLiteShell.read(out, "SELECT sql FROM sqlite_master WHERE name = 'Z_2TAGS'"),
                       #"CREATE TABLE "Z_2TAGS" ( Z_2BOOKS INTEGER, Z_3TAGS INTEGER, PRIMARY KEY (Z_2BOOKS, Z_3TAGS) )"#)
        // Migrated again (Author loses `name`, so rows are copied), the join table, which the
        // migration leaves as it is, keeps its statement.
        let again = try model("Again", #"<entity name="Author" representedClassName="Author"><attribute name="born" optional="YES" attributeType="Date"/></entity>"#)
        let twice = folder.appendingPathComponent("Twice.sqlite").path
        XCTAssertEqual(try CLI.run(["migrate", out, "--model", again, "--to", twice]).status, 0)
        XCTAssertEqual(try SQLiteShell.read(twice, "SELECT sql FROM sqlite_master WHERE name = 'Z_2TAGS'"),
                       #"CREATE TABLE "Z_2TAGS" ( Z_2BOOKS INTEGER, Z_3TAGS INTEGER, PRIMARY KEY (Z_2BOOKS, Z_3TAGS) )"#)
    }

    /// The example store and a changed model: an attribute renamed by renaming identifier,
    /// one made required without a default while rows hold NULL, a new entity. The dry run
    /// names each step, the refusal with its rows, and writes nothing.
    func testADryRunNamesEachStepAndTheRefusalAndWritesNothing() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 20).path
        XCTAssertEqual(try CLI.run([store, "-c", "update Person/p3 birthday=NULL", "-c", "update Person/p5 birthday=NULL", "-c", "save"]).status, 0)
        let changed = folder.appendingPathComponent("Changed.xcdatamodel")
        try FileManager.default.createDirectory(at: changed, withIntermediateDirectories: true)
        let original = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld")
            .appendingPathComponent(try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path)
                .first { $0.hasSuffix(".xcdatamodel") })).appendingPathComponent("contents"), encoding: .utf8)
        let xml = original
            .replacingOccurrences(of: "<attribute name=\"score\" optional=\"YES\"", with: "<attribute name=\"rating\" elementID=\"score\" optional=\"YES\"")
            .replacingOccurrences(of: "<attribute name=\"birthday\" optional=\"YES\"", with: "<attribute name=\"birthday\"")
            .replacingOccurrences(of: "</model>", with: "<entity name=\"Garage\" representedClassName=\"Garage\"><attribute name=\"city\" optional=\"YES\" attributeType=\"String\"/></entity></model>")
        try Data(xml.utf8).write(to: changed.appendingPathComponent("contents"))
        // Any reader of a store in WAL mode leaves its -wal and -shm; nothing else may appear.
        let files = { try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted() }
        let before = try files()
        let digest = try SQLiteShell.read(store, "SELECT count(*), sum(ZSCORE) FROM ZPERSON")
        let dry = try CLI.run(["migrate", store, "--model", changed.path, "--dry-run"])
        XCTAssertEqual(dry.status, 1, dry.stderr)
        for expected in ["Garage: new entity", "Person (entity", "ZRATING: from score", "refused:",
                         "Person.birthday is made required without a default while rows hold NULL", "2 rows: Person/p3 Person/p5",
                         "refused: rows would fail the new model; nothing written"] {
            XCTAssertTrue(dry.stdout.contains(expected), "\(expected) in \(dry.stdout)")
        }
        XCTAssertEqual(try files(), before)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*), sum(ZSCORE) FROM ZPERSON"), digest)
        // The same plan in JSON, for programs and the MCP tool.
        let json = try CLI.run(["migrate", store, "--model", changed.path, "--dry-run", "--format", "json"])
        XCTAssertEqual(json.status, 1)
        let plan = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let refused = try XCTUnwrap(plan["refused"] as? [[String: Any]])
        XCTAssertEqual(refused.first?["count"] as? Int, 2)
        XCTAssertEqual(try CLI.run(["migrate", store, "--model", changed.path]).status, 64, "say what to do")
    }

    /// A migration that only adds (an attribute with a default) alters a copy of the store's
    /// pages; with a new entity besides, it copies every row into the new layout. Both give
    /// the same people, key for key and value for value, and the same schema by name, but for
    /// the index of the join table the new entity's number renames, kept under its old name
    /// (`testARenamedJoinTableKeepsItsIndexesUnderTheirNames`).
    func testAMigrationThatOnlyAddsGivesWhatTheCopyGives() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 30).path
        let contents = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld/People.xcdatamodel/contents"), encoding: .utf8)
        let adds = contents.replacingOccurrences(of: "<attribute name=\"score\"",
                                                 with: "<attribute name=\"rank\" optional=\"YES\" attributeType=\"Integer 16\" defaultValueString=\"3\" usesScalarValueType=\"YES\"/>\n        <attribute name=\"score\"")
        let addsAndMore = adds.replacingOccurrences(of: "</model>", with: "<entity name=\"Garage\" representedClassName=\"Garage\"><attribute name=\"city\" optional=\"YES\" attributeType=\"String\"/></entity></model>")
        var outs: [String] = []
        for (name, xml, method) in [("Adds", adds, "alter"), ("AddsAndMore", addsAndMore, "copy")] {
            let model = folder.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
            try Data(xml.utf8).write(to: model.appendingPathComponent("contents"))
            let out = folder.appendingPathComponent("\(name).sqlite").path
            let answer = try XCTUnwrap(CLI.json(["migrate", store, "--model", model.path, "--to", out, "--format", "json"]) as? [String: Any])
            XCTAssertEqual(answer["method"] as? String, method, name)
            let created = folder.appendingPathComponent("Created\(name).sqlite").path
            XCTAssertEqual(try CLI.run(["create", created, "--model", model.path]).status, 0)
            try assertSameSchema(out, created, name,
                                 kept: method == "copy" ? [#"Z_3TAGS_Z_4TAGS_INDEX: CREATE INDEX Z_3TAGS_Z_4TAGS_INDEX ON "Z_4TAGS" (Z_5TAGS, Z_4PEOPLE)"#] : [])
            outs.append(out)
        }
        // Garage takes an entity number before Person's, so numbers (and the join table's
        // name) differ; rows are compared by entity name.
        let byName = "(SELECT Z_NAME FROM Z_PRIMARYKEY WHERE Z_PRIMARYKEY.Z_ENT = t.Z_ENT)"
        for query in ["SELECT Z_PK, \(byName), Z_OPT, ZNAME, ZAGE, hex(ZID), ZRANK, ZSCORE, ZBIRTHDAY FROM ZPERSON t ORDER BY Z_PK",
                      "SELECT Z_PK, \(byName), ZOWNER, ZNAME FROM ZCAR t ORDER BY Z_PK",
                      "SELECT Z_NAME, Z_SUPER != 0, Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME != 'Garage' ORDER BY Z_NAME"] {
            XCTAssertEqual(try SQLiteShell.read(outs[0], query), try SQLiteShell.read(outs[1], query), query)
        }
        let pairs = { (path: String) throws -> String in
            let table = try SQLiteShell.read(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%TAGS' ESCAPE '\\'")
            return try SQLiteShell.read(path, "SELECT * FROM \(table) ORDER BY 1, 2")
        }
        XCTAssertEqual(try pairs(outs[0]), try pairs(outs[1]))
        XCTAssertFalse(try pairs(outs[0]).isEmpty)
        XCTAssertEqual(try SQLiteShell.read(outs[0], "SELECT count(*) FROM ZPERSON WHERE ZRANK = 3"), "30")
        // Both paths keep ZPERSON's statement, the new column added at its end.
        let person = "SELECT sql FROM sqlite_master WHERE name = 'ZPERSON'"
        XCTAssertEqual(try SQLiteShell.read(outs[1], person), try SQLiteShell.read(outs[0], person))
        XCTAssertEqual(try SQLiteShell.read(outs[0], person), String(try SQLiteShell.read(store, person).dropLast(2)) + " , ZRANK INTEGER)")
    }

    /// In place: the store becomes the migrated store, and what it was is kept as a snapshot
    /// `restore` would put back.
    func testMigratingInPlaceKeepsASnapshot() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.copy("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite", into: folder).path
        let model4 = try model("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_4.xcdatamodel__contents")
        let environment = ["XDG_DATA_HOME": folder.appendingPathComponent("library").path]
        let run = try CLI.run(["migrate", store, "--model", model4, "--in-place"], environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("the store as it was is kept as snapshot before-migrate-"), run.stdout)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPOST WHERE ZHIDE = 0"), "7995")
        XCTAssertEqual(try CLI.run(["doctor", store]).status, 0)
        let snapshots = try CLI.run(["snapshots", store], environment: environment)
        XCTAssertTrue(snapshots.stdout.contains("before-migrate-"), snapshots.stdout)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.contains(".migrating-") })
        let inSession = try CLI.run([store, "-c", "migrate --model \(model4) --in-place"])
        XCTAssertNotEqual(inSession.status, 0)
        XCTAssertTrue(inSession.stderr.contains("run it as 'cdinspect migrate STORE"), inSession.stderr)
    }
}

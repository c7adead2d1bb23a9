import Foundation
import ManagedStore
import XCTest

/// Composite attributes (macOS 14 / iOS 17) on a store the example generator makes from a
/// model with one: Person.address (city, postcode, and a nested composite location with
/// latitude and longitude), flattened into one column per leaf, named as Core Data names
/// them: after the element alone (`ZCITY`, `ZLATITUDE`).
final class CompositeAttributeTests: XCTestCase {
    var folder: URL!
    var store: String!
    var modelPath: String!

    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Person" representedClassName="Person" syncable="YES">
                <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
                <attribute name="name" attributeType="String"/>
            </entity>
            <compositeAttribute name="Address">
                <attribute name="city" optional="YES" attributeType="String"/>
                <attribute name="location" optional="YES" attributeType="Composite" composite="Point"/>
                <attribute name="postcode" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            </compositeAttribute>
            <compositeAttribute name="Point">
                <attribute name="latitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="longitude" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            </compositeAttribute>
        </model>
        """

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
        (store, modelPath) = try Fixtures.emptyStore(model: Self.model, named: "Places", storeFile: "Places.sqlite", in: folder)
    }

    /// One column per leaf, named after the element, and the schema check finds each. (Where
    /// each stands in the table, no genuine store with a composite shows: the leaves take their
    /// places by kind as other attributes do.)
    func testLeavesAreColumnsAndTheSchemaCheckVerifiesThem() throws {
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT group_concat(name, ' ') FROM (SELECT name FROM pragma_table_info('ZPERSON') WHERE name NOT IN ('Z_PK', 'Z_ENT', 'Z_OPT', 'ZNAME') ORDER BY name)"),
                       "ZCITY ZLATITUDE ZLONGITUDE ZPOSTCODE")
        let schema = try XCTUnwrap(CLI.json(["schema", store, "Person", "--format", "json"]) as? [String: Any])
        let attributes = try XCTUnwrap(schema["attributes"] as? [[String: Any]])
        let storage = Dictionary(uniqueKeysWithValues: attributes.map { ($0["name"] as! String, $0["column"] as? String ?? "") })
        XCTAssertEqual(storage["address.city"], "ZCITY")
        XCTAssertEqual(storage["address.location.longitude"], "ZLONGITUDE")
        XCTAssertNil(storage["address"])
        // A store whose leaf column is missing is reported, not silently read as nil.
        try SQLiteShell.run(store, "ALTER TABLE ZPERSON DROP COLUMN ZPOSTCODE")
        let damaged = try CLI.run(["count", store, "Person"])
        XCTAssertEqual(damaged.stderr, "cdinspect: warning: the model does not match the store's tables, so these properties read as nil: "
                       + "Person.address.postcode: ZPERSON.ZPOSTCODE\n")
        // A store an earlier cdinspect wrote, its leaf named after the path, is read from that column.
        try SQLiteShell.run(store, "ALTER TABLE ZPERSON RENAME COLUMN ZCITY TO ZADDRESSCITY")
        try SQLiteShell.run(store, "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME, ZADDRESSCITY) VALUES (1, 1, 1, 'Di', 'Lima')")
        let renamed = try CLI.run(["fetch", store, "Person", "--keys", "address.city", "--format", "csv"])
        XCTAssertEqual(renamed.stdout, "objectID,address.city\n\(Fixtures.uri("Person/p1")),Lima\n")
    }

    /// Insert, update and save through a session; fetch as nested JSON and as dotted
    /// columns; predicates and sorts on leaves, in SQL and in memory; batch updates.
    func testCompositesRoundTripThroughSaveFetchPredicateAndBatchUpdate() throws {
        let session = try CLI.run([store,
                                   "-c", "insert Person name=\"Ann\" address.city=\"Paris\" address.postcode=75001 address.location.latitude=48.85",
                                   "-c", "insert Person name=\"Bo\" address.city=\"Oslo\"",
                                   "-c", "insert Person name=\"Cy\"",
                                   "-c", "save"])
        XCTAssertEqual(session.status, 0, session.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT ZNAME, ZCITY, ZPOSTCODE, ZLATITUDE FROM ZPERSON ORDER BY Z_PK"),
                       "Ann|Paris|75001|48.85\nBo|Oslo|0|\nCy||0|")

        let rows = try XCTUnwrap(CLI.json(["fetch", store, "Person", "--where", "address.city != nil", "--sort", "address.city",
                                           "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["name"] as? String }, ["Bo", "Ann"])
        let address = try XCTUnwrap(rows.last?["address"] as? [String: Any])
        XCTAssertEqual(address["city"] as? String, "Paris")
        XCTAssertEqual(address["postcode"] as? Int, 75001)
        XCTAssertEqual((address["location"] as? [String: Any])?["latitude"] as? Double, 48.85)

        let csv = try CLI.run(["fetch", store, "Person", "--keys", "name,address.city", "--where", "address.location.latitude > 40", "--format", "csv"])
        XCTAssertEqual(csv.stdout, "objectID,name,address.city\n\(Fixtures.uri("Person/p1")),Ann,Paris\n")

        // Unsaved changes match in memory through the composite, as key-value coding does.
        let pending = try CLI.run([store, "-c", "update Person/p3 address.city=\"Rome\"",
                                   "-c", "fetch Person --keys name --where 'address.city BEGINSWITH \"R\"'"])
        XCTAssertTrue(pending.stdout.contains("Cy"), pending.stdout + pending.stderr)

        let batch = try CLI.run(["batch-update", store, "Person", "--set", "address.postcode=address.postcode+1", "--where", "address.city == \"Paris\""])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT ZPOSTCODE FROM ZPERSON WHERE ZNAME = 'Ann'"), "75002")

        let whole = try CLI.run(["count", store, "Person", "--where", "address == nil"])
        XCTAssertEqual(whole.status, 1)
        XCTAssertTrue(whole.stderr.hasPrefix("cdinspect: error: predicate error at column 1: address is a composite attribute of Person; compare its elements: address.city"),
                      whole.stderr)
    }

    /// The model read from the generated store's cache exports with the composite
    /// definitions at model level and reads back with the same leaves; adding an element is
    /// an attribute added (Apple: "Addition of an attribute").
    func testCompositesExportAndDiff() throws {
        let bundle = folder.appendingPathComponent("Out.xcdatamodeld").path
        XCTAssertEqual(try CLI.run(["model", store, "export", bundle]).status, 0)
        let contents = try String(contentsOfFile: bundle + "/Out.xcdatamodel/contents", encoding: .utf8)
        XCTAssertTrue(contents.contains("<attribute name=\"address\" optional=\"YES\" attributeType=\"Composite\" composite=\"Address\"/>"), contents)
        XCTAssertTrue(contents.contains("<compositeAttribute name=\"Location\">") || contents.contains("<compositeAttribute name=\"Point\">"), contents)
        XCTAssertEqual(try CLI.run(["model", store, "diff", bundle]).stdout, "The models are equivalent.\n"
                       + "Core Data opens this store with the other model as is: every entity's version hash matches the store's metadata.\n")
        let leaves = try XcdatamodelReader.model(atPath: bundle).flattenedProperties(of: "Person").map(\.property.name)
        XCTAssertEqual(leaves.sorted(), ["address.city", "address.location.latitude", "address.location.longitude", "address.postcode", "name"])

        let newer = folder.appendingPathComponent("Newer.xcdatamodel")
        try FileManager.default.createDirectory(at: newer, withIntermediateDirectories: true)
        try Data(Self.model.replacingOccurrences(of: "<attribute name=\"city\"", with: "<attribute name=\"country\" optional=\"YES\" attributeType=\"String\"/>\n<attribute name=\"city\"").utf8)
            .write(to: newer.appendingPathComponent("contents"))
        let diff = try CLI.run(["model", store, "diff", newer.path, "--format", "csv"])
        XCTAssertEqual(diff.status, 1)
        XCTAssertEqual(diff.stdout, "entity,property,change,detail,migration,rule\nPerson,address.country,added,attribute (String),lightweight,\"Apple: \"\"Addition of an attribute\"\" is inferred\"\n")
    }
}

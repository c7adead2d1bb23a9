import Foundation
import XCTest

/// The shapes SwiftData gives a Codable struct, an enum and an array inside a struct,
/// built from the facts observed on genuine SwiftData stores (sql-entity.md §4; the stores
/// themselves are held out): each composite element's column is named after the element
/// alone, with Core Data's suffix on a collision (`author.id` → `ZID1` beside the entity's
/// own `id`), and an array element is a Binary column holding JSON.
final class SwiftDataCompositeTests: XCTestCase {
    var folder: URL!
    var store: String!

    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Quote" representedClassName="Quote" syncable="YES">
                <attribute name="author" optional="YES" attributeType="Composite" composite="Author"/>
                <attribute name="collection" optional="YES" attributeType="Composite" composite="Collection"/>
                <attribute name="compiledTags" optional="YES" attributeType="Composite" composite="CompiledTags"/>
                <attribute name="ice" optional="YES" attributeType="Composite" composite="Ice"/>
                <attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="text" optional="YES" attributeType="String"/>
            </entity>
            <compositeAttribute name="Author">
                <attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="person" optional="YES" attributeType="String"/>
                <attribute name="place" optional="YES" attributeType="String"/>
                <attribute name="year" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            </compositeAttribute>
            <compositeAttribute name="Collection">
                <attribute name="collection" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            </compositeAttribute>
            <compositeAttribute name="CompiledTags">
                <attribute name="flavors" optional="YES" attributeType="Binary"/>
                <attribute name="garnishes" optional="YES" attributeType="Binary"/>
            </compositeAttribute>
            <compositeAttribute name="Ice">
                <attribute name="ice" optional="YES" attributeType="String"/>
            </compositeAttribute>
        </model>
        """

    /// SwiftData's JSONEncoder output for `["Molé", "Passionfruit"]`.
    static let flavors = #"["Molé","Passionfruit"]"#
    /// … and for an array of a Codable struct, `[Garnish(name: "Lime", grams: 2)]`.
    static let garnishes = #"[{"grams":2,"name":"Lime\/zest"}]"#

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
        store = try Fixtures.emptyStore(model: Self.model, named: "Quotes", storeFile: "default.store", in: folder).store
        try SQLiteShell.run(store, """
            INSERT INTO ZQUOTE (Z_PK, Z_ENT, Z_OPT, ZID, ZTEXT, ZID1, ZPERSON, ZPLACE, ZYEAR, ZFLAVORS, ZGARNISHES, ZICE, ZCOLLECTION)
            VALUES (1, 1, 1, x'0102030405060708090A0B0C0D0E0F10', 'Be yourself', x'A1A2A3A4A5A6A7A8A9AAABACADAEAFB0', 'Oscar Wilde',
                    'Dublin', 1890, CAST('\(Self.flavors)' AS BLOB), CAST('\(Self.garnishes)' AS BLOB), 'crushed', 2);
            UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Quote';
            """)
    }

    /// The columns are Core Data's, so nothing is reported missing and every value shows.
    func testElementColumnsAreNamedAfterTheElement() throws {
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT group_concat(name, ' ') FROM (SELECT name FROM pragma_table_info('ZQUOTE') WHERE name NOT LIKE 'Z\\_%' ESCAPE '\\' ORDER BY name)"),
                       "ZCOLLECTION ZFLAVORS ZGARNISHES ZICE ZID ZID1 ZPERSON ZPLACE ZTEXT ZYEAR")
        let schema = try XCTUnwrap(CLI.json(["schema", store, "Quote", "--format", "json"]) as? [String: Any])
        let attributes = try XCTUnwrap(schema["attributes"] as? [[String: Any]])
        let storage = Dictionary(uniqueKeysWithValues: attributes.map { ($0["name"] as! String, $0["column"] as? String ?? "") })
        XCTAssertEqual(storage["id"], "ZID")
        XCTAssertEqual(storage["author.id"], "ZID1")
        XCTAssertEqual(storage["ice.ice"], "ZICE")
        XCTAssertEqual(storage["compiledTags.flavors"], "ZFLAVORS")
        let count = try CLI.run(["count", store, "Quote", "--where", "author.person == 'Oscar Wilde' AND ice.ice == 'crushed'"])
        XCTAssertEqual(count.stdout, "1\n")
        XCTAssertEqual(count.stderr, "", "no model/table warning")
    }

    /// A Swift predicate reads a composite as SwiftData declares it: an enum compared with its
    /// case, a struct's element through optional chaining; the SQL is the key paths'.
    func testSwiftPredicatesReadCompositesAsSwiftDataDeclaresThem() throws {
        for (swift, ns) in [("#Predicate<Quote> { $0.ice == .crushed }", "ice.ice == 'crushed'"),
                            ("{ $0.author?.person == \"Oscar Wilde\" && $0.author!.year! < 1900 }", "author.person == 'Oscar Wilde' AND author.year < 1900"),
                            ("{ $0.ice != .cubed }", "ice.ice != 'cubed'")] {
            let a = try CLI.run(["explain", store, "Quote", "--where", swift])
            let b = try CLI.run(["explain", store, "Quote", "--where", ns])
            XCTAssertEqual(a.status, 0, a.stderr)
            XCTAssertEqual(a.stdout, b.stdout, swift)
            XCTAssertEqual(try CLI.run(["count", store, "Quote", "--where", swift]).stdout, "1\n", swift)
        }
        XCTAssertEqual(try CLI.run(["count", store, "Quote", "--where", "{ $0.ice == .cubed }"]).stdout, "0\n")
    }

    /// `model export --swift` declares the struct and the enums beside the class: an enum with
    /// the raw values its rows hold, a JSON element with the Swift type its values show, and
    /// the sources typecheck once SwiftData's annotations are set aside.
    func testModelExportDeclaresCompositesAsCodableTypes() throws {
        try SQLiteShell.run(store, """
            INSERT INTO ZQUOTE (Z_PK, Z_ENT, Z_OPT, ZTEXT, ZICE, ZCOLLECTION) VALUES (2, 1, 1, 'Less is more', 'Double Old Fashioned', -1);
            UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_NAME = 'Quote';
            """)
        let out = folder.appendingPathComponent("Models")
        let result = try CLI.run(["model", store, "export", out.path, "--swift"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let source = try String(contentsOf: out.appendingPathComponent("Quote.swift"), encoding: .utf8)
        for line in ["    var author: Author?\n", "    var ice: Ice?\n", "struct Author: Codable {\n    var id: UUID?\n    var person: String?\n",
                     "enum Ice: String, Codable {\n    case doubleOldFashioned = \"Double Old Fashioned\"\n    case crushed\n}",
                     "/// Collection shadows the standard library's Collection in this module",
                     "enum Collection: Int, Codable {\n    case valueMinus1 = -1\n    case value2 = 2\n}",
                     "struct CompiledTags: Codable {\n", "    var flavors: [String]?\n", "    var garnishes: [Garnish]?\n",
                     "    struct Garnish: Codable {\n        var grams: Int\n        var name: String\n    }"] {
            XCTAssertTrue(source.contains(line), "no \(line) in\n\(source)")
        }
        XCTAssertEqual(try SwiftModelExportTests.typecheckErrors(out, in: folder), [])
    }

    /// `--keys` may name a composite whole: it shows whole, as a fetch of every key shows it.
    func testKeysNamingACompositeShowItWhole() throws {
        let rows = try XCTUnwrap(CLI.json(["fetch", store, "Quote", "--keys", "text,author,ice", "--format", "json"]) as? [[String: Any]])
        let author = try XCTUnwrap(rows.first?["author"] as? [String: Any])
        XCTAssertEqual(author["person"] as? String, "Oscar Wilde")
        XCTAssertEqual((rows.first?["ice"] as? [String: Any])?["ice"] as? String, "crushed")
        let csv = try CLI.run(["fetch", store, "Quote", "--keys", "text,ice", "--format", "csv"])
        XCTAssertEqual(csv.stdout, "objectID,text,ice.ice\n\(Fixtures.uri("Quote/p1")),Be yourself,crushed\n")
    }

    /// A string search inside a JSON element is not a question the store can answer: said so,
    /// not as a key path it cannot find.
    func testAPredicateInsideJSONSaysTheStoreCannotCompareInside() throws {
        for predicate in ["compiledTags.flavors CONTAINS \"sweet\"", "compiledTags.flavors BEGINSWITH \"[\"", "ANY compiledTags.flavors > \"a\""] {
            let r = try CLI.run(["count", store, "Quote", "--where", predicate])
            XCTAssertEqual(r.status, 1, predicate)
            XCTAssertTrue(r.stderr.contains("compiledTags.flavors holds JSON (SwiftData's encoding of an array or a Codable value), which the store cannot compare inside"),
                          r.stderr)
            XCTAssertFalse(r.stderr.contains("not found"), r.stderr)
        }
        XCTAssertEqual(try CLI.run(["count", store, "Quote", "--where", "compiledTags.flavors != nil"]).stdout, "1\n")
    }

    /// An enum case SwiftData compares by its raw value: when no row holds the case's name, the
    /// count of 0 comes with a warning listing the values the rows hold.
    func testAnEnumCaseNoRowHoldsIsWarnedOfWithTheValuesHeld() throws {
        try SQLiteShell.run(store, "UPDATE ZQUOTE SET ZICE = 'On the rocks' WHERE Z_PK = 1")
        let r = try CLI.run(["count", store, "Quote", "--where", "#Predicate<Quote> { $0.ice == .rocks }"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "0\n")
        XCTAssertEqual(r.stderr, "cdinspect: warning: no Quote holds \"rocks\" in ice.ice, so .rocks matches nothing: SwiftData stores an enum's "
                       + "raw value, which may not be its case's name; the rows hold \"On the rocks\"\n")
        // A case a row holds is not warned of; nor is a value an NSPredicate names.
        try SQLiteShell.run(store, "UPDATE ZQUOTE SET ZICE = 'rocks' WHERE Z_PK = 1")
        let held = try CLI.run(["count", store, "Quote", "--where", "{ $0.ice == .rocks }"])
        XCTAssertEqual(held.stdout, "1\n")
        XCTAssertEqual(held.stderr, "")
        XCTAssertEqual(try CLI.run(["count", store, "Quote", "--where", "ice.ice == 'cubed'"]).stderr, "")
    }

    /// export → create → import → export of a store of composites and JSON: the same document,
    /// and the imported columns' bytes are the source's.
    func testExportCreateImportIsAFixedPoint() throws {
        let first = folder.appendingPathComponent("first.json"), second = folder.appendingPathComponent("second.json")
        XCTAssertEqual(try CLI.run(["export", store, "--to", first.path]).status, 0)
        XCTAssertEqual(try CLI.run(["model", store, "export", folder.appendingPathComponent("model").path]).status, 0)
        let copy = folder.appendingPathComponent("Copy.store").path
        let created = try CLI.run(["create", copy, "--model", folder.appendingPathComponent("model/default.xcdatamodeld").path])
        XCTAssertEqual(created.status, 0, created.stderr)
        let imported = try CLI.run(["import", copy, first.path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try CLI.run(["export", copy, "--to", second.path]).status, 0)
        let uuid = { (path: String) in try SQLiteShell.read(path, "SELECT Z_UUID FROM Z_METADATA").trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(try String(contentsOf: second, encoding: .utf8).replacingOccurrences(of: try uuid(copy), with: "UUID"),
                       try String(contentsOf: first, encoding: .utf8).replacingOccurrences(of: try uuid(store), with: "UUID"))
        let columns = "hex(ZFLAVORS), hex(ZGARNISHES), ZICE, ZCOLLECTION, hex(ZID), hex(ZID1), ZPERSON, ZPLACE, ZYEAR, ZTEXT"
        XCTAssertEqual(try SQLiteShell.read(copy, "SELECT \(columns) FROM ZQUOTE"), try SQLiteShell.read(store, "SELECT \(columns) FROM ZQUOTE"))
    }

    /// An array element prints as JSON: nested in JSON output, its compact text elsewhere.
    func testArraysPrintAsJSON() throws {
        let rows = try XCTUnwrap(CLI.json(["fetch", store, "Quote", "--format", "json"]) as? [[String: Any]])
        let tags = try XCTUnwrap(rows.first?["compiledTags"] as? [String: Any])
        XCTAssertEqual(tags["flavors"] as? [String], ["Molé", "Passionfruit"])
        let author = try XCTUnwrap(rows.first?["author"] as? [String: Any])
        XCTAssertEqual(author["person"] as? String, "Oscar Wilde")
        XCTAssertEqual(author["year"] as? Int, 1890)
        XCTAssertEqual(author["id"] as? String, "A1A2A3A4-A5A6-A7A8-A9AA-ABACADAEAFB0")
        let csv = try CLI.run(["fetch", store, "Quote", "--keys", "compiledTags.flavors,ice.ice", "--format", "csv"])
        XCTAssertEqual(csv.stdout, "objectID,compiledTags.flavors,ice.ice\n\(Fixtures.uri("Quote/p1")),\"[\"\"Molé\"\",\"\"Passionfruit\"\"]\",crushed\n")
    }

    /// What a fetch shows, written back, leaves the column byte-identical; a literal array is
    /// written as JSONEncoder writes it (`/` escaped).
    func testJSONWrittenBackIsSwiftDatasBytes() throws {
        let before = try SQLiteShell.read(store, "SELECT hex(ZFLAVORS) FROM ZQUOTE WHERE Z_PK = 1")
        let shown = try CLI.run(["fetch", store, "Quote", "--keys", "compiledTags.flavors", "--format", "line"])
        XCTAssertTrue(shown.stdout.contains(Self.flavors), shown.stdout)
        let same = try CLI.run([store, "-c", "update Quote/p1 compiledTags.flavors='\(Self.flavors)' text=\"Be you\"", "-c", "save"])
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT hex(ZFLAVORS), ZTEXT FROM ZQUOTE WHERE Z_PK = 1"), before + "|Be you")
        let literal = try CLI.run([store, "-c", #"update Quote/p1 'compiledTags.flavors={"Lime", "a/b"}'"#, "-c", "save"])
        XCTAssertEqual(literal.status, 0, literal.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT CAST(ZFLAVORS AS TEXT) FROM ZQUOTE WHERE Z_PK = 1"), #"["Lime","a\/b"]"#)
        let batch = try CLI.run(["batch-update", store, "Quote", "--set", #"compiledTags.flavors='["x"]'"#])
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT CAST(ZFLAVORS AS TEXT) FROM ZQUOTE WHERE Z_PK = 1"), #"["x"]"#)
    }

    /// Bytes in a Binary element that are no JSON (a `Data` property's own bytes) stay bytes.
    func testDataThatIsNoJSONStaysBytes() throws {
        try SQLiteShell.run(store, "UPDATE ZQUOTE SET ZFLAVORS = x'00FF10' WHERE Z_PK = 1")
        let csv = try CLI.run(["fetch", store, "Quote", "--keys", "compiledTags.flavors", "--format", "csv"])
        XCTAssertEqual(csv.stdout, "objectID,compiledTags.flavors\n\(Fixtures.uri("Quote/p1")),AP8Q\n")
    }
}

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
            <compositeAttribute name="CompiledTags">
                <attribute name="flavors" optional="YES" attributeType="Binary"/>
            </compositeAttribute>
            <compositeAttribute name="Ice">
                <attribute name="ice" optional="YES" attributeType="String"/>
            </compositeAttribute>
        </model>
        """

    /// SwiftData's JSONEncoder output for `["Molé", "Passionfruit"]`.
    static let flavors = #"["Molé","Passionfruit"]"#

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
        store = try Fixtures.emptyStore(model: Self.model, named: "Quotes", storeFile: "default.store", in: folder).store
        try SQLiteShell.run(store, """
            INSERT INTO ZQUOTE (Z_PK, Z_ENT, Z_OPT, ZID, ZTEXT, ZID1, ZPERSON, ZPLACE, ZYEAR, ZFLAVORS, ZICE)
            VALUES (1, 1, 1, x'0102030405060708090A0B0C0D0E0F10', 'Be yourself', x'A1A2A3A4A5A6A7A8A9AAABACADAEAFB0', 'Oscar Wilde',
                    'Dublin', 1890, CAST('\(Self.flavors)' AS BLOB), 'crushed');
            UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Quote';
            """)
    }

    /// The columns are Core Data's, so nothing is reported missing and every value shows.
    func testElementColumnsAreNamedAfterTheElement() throws {
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT group_concat(name, ' ') FROM (SELECT name FROM pragma_table_info('ZQUOTE') WHERE name NOT LIKE 'Z\\_%' ESCAPE '\\' ORDER BY name)"),
                       "ZFLAVORS ZICE ZID ZID1 ZPERSON ZPLACE ZTEXT ZYEAR")
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

    /// `model export --swift` declares the struct and the enum beside the class.
    func testModelExportDeclaresCompositesAsCodableTypes() throws {
        let out = folder.appendingPathComponent("Models")
        let result = try CLI.run(["model", store, "export", out.path, "--swift"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let source = try String(contentsOf: out.appendingPathComponent("Quote.swift"), encoding: .utf8)
        for line in ["    var author: Author?\n", "    var ice: Ice?\n", "struct Author: Codable {\n    var id: UUID?\n    var person: String?\n",
                     "enum Ice: String, Codable {\n}", "struct CompiledTags: Codable {\n"] {
            XCTAssertTrue(source.contains(line), "no \(line) in\n\(source)")
        }
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

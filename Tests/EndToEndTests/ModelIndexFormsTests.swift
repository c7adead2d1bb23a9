import Foundation
import ManagedStore
import XCTest

/// The model editor's older index forms, `indexed="YES"` on an attribute and
/// `<compoundIndexes>` on an entity (Wire's models use both), read as the fetch indexes Xcode's
/// compiler makes of them: the ones knowledgeC's cache holds (`byNameIndex` over `name`,
/// `compoundIndex` over `name` and `valueHash`), and `create` makes the indexes knowledgeC's
/// store has.
final class ModelIndexFormsTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    static let olderForms = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="10174" systemVersion="15F34" minimumToolsVersion="Xcode 7.0">
            <entity name="CustomMetadata" representedClassName="_DKCustomMetadataMO" syncable="YES">
                <attribute name="name" attributeType="String" indexed="YES" syncable="YES"/>
                <attribute name="stringValue" optional="YES" attributeType="String" syncable="YES"/>
                <attribute name="valueHash" attributeType="String" syncable="YES"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="name"/>
                        <index value="valueHash"/>
                    </compoundIndex>
                </compoundIndexes>
            </entity>
        </model>
        """

    func testTheOlderIndexFormsAreTheFetchIndexesCoreDataCompilesThemTo() throws {
        let model = try XcdatamodelReader.model(contents: Array(Self.olderForms.utf8), file: "contents", source: "test")
        let read = try XCTUnwrap(model.entity(named: "CustomMetadata")).fetchIndexes
        XCTAssertEqual(read.map(\.name), ["byNameIndex", "compoundIndex"])
        XCTAssertEqual(read.map { $0.elements.map(\.propertyName) }, [["name"], ["name", "valueHash"]])

        let knowledge = try PersistentStore(path: try Fixtures.copy("log2timeline_plaso/knowledgec-10.13.db", into: folder).path,
                                            options: .init(readonly: true))
        XCTAssertEqual(knowledge.model.entity(named: "CustomMetadata")?.fetchIndexes, read, "the cache Core Data wrote holds the same")

        // `create` makes the indexes Core Data made in knowledgeC's store, to the letter.
        let contents = folder.appendingPathComponent("Older.xcdatamodel")
        try FileManager.default.createDirectory(at: contents, withIntermediateDirectories: true)
        try Self.olderForms.write(to: contents.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let created = folder.appendingPathComponent("created.sqlite").path
        let made = try CLI.run(["create", created, "--model", contents.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let query = "SELECT sql FROM sqlite_master WHERE name IN ('Z_CustomMetadata_byNameIndex', 'Z_CustomMetadata_compoundIndex') ORDER BY name"
        let genuine = try SQLiteShell.read(knowledge.path, query)
        XCTAssertEqual(genuine.split(separator: "\n").count, 2)
        XCTAssertEqual(try SQLiteShell.read(created, query), genuine)
        // And they are kept where a model is written out again.
        let exported = try CLI.run(["model", created])
        XCTAssertTrue(exported.stdout.contains(#"<fetchIndex name="byNameIndex">"#) && exported.stdout.contains(#"<fetchIndex name="compoundIndex">"#), exported.stdout)
    }
}

import Foundation
import ManagedStore
import XCTest

/// The model editor's older index forms, `indexed="YES"` on an attribute and
/// `<compoundIndexes>` on an entity, are the fetch indexes Core Data (framework 847 and
/// later) makes of them, named after the attribute, or the compound's attributes joined by
/// `_`. The SQL below is copied from Wire's `store2-101-0.wiredatabase` (wire-ios-data-model,
/// framework 1145), written from `zmessaging2.101.0.xcdatamodel`, whose `User.normalizedName`
/// is `indexed="YES"` and whose Conversation has the compound index over
/// `internalIsArchived` and `lastModifiedDate`; its cache holds the fetch indexes
/// `normalizedName` and `internalIsArchived_lastModifiedDate`. Every Wire store since
/// framework 847 (2.39.0 to 2.101.0) has these names.
final class ModelIndexFormsTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    static let olderForms = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="19574" systemVersion="21C52" minimumToolsVersion="Xcode 4.3" sourceLanguage="Objective-C" userDefinedModelVersionIdentifier="2.101.0">
            <entity name="Conversation" representedClassName="ZMConversation" syncable="YES">
                <attribute name="internalIsArchived" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="NO" syncable="YES"/>
                <attribute name="lastModifiedDate" optional="YES" attributeType="Date" usesScalarValueType="NO" syncable="YES"/>
                <attribute name="normalizedUserDefinedName" optional="YES" attributeType="String" indexed="YES" syncable="YES"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="internalIsArchived"/>
                        <index value="lastModifiedDate"/>
                    </compoundIndex>
                </compoundIndexes>
            </entity>
            <entity name="User" representedClassName="ZMUser" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String" syncable="YES"/>
                <attribute name="normalizedName" optional="YES" attributeType="String" indexed="YES" syncable="YES"/>
            </entity>
        </model>
        """

    /// Core Data's own SQL for these indexes, from Wire's 2.101.0 store.
    static let coreDataSQL = [
        "CREATE INDEX Z_Conversation_internalIsArchived_lastModifiedDate ON ZCONVERSATION (ZINTERNALISARCHIVED COLLATE BINARY ASC, ZLASTMODIFIEDDATE COLLATE BINARY ASC)",
        "CREATE INDEX Z_Conversation_normalizedUserDefinedName ON ZCONVERSATION (ZNORMALIZEDUSERDEFINEDNAME COLLATE BINARY ASC)",
        "CREATE INDEX Z_User_normalizedName ON ZUSER (ZNORMALIZEDNAME COLLATE BINARY ASC)",
    ]

    func testTheOlderIndexFormsAreTheFetchIndexesCoreDataMakesOfThem() throws {
        let model = try XcdatamodelReader.model(contents: Array(Self.olderForms.utf8), file: "contents", source: "test")
        let read = try XCTUnwrap(model.entity(named: "Conversation")).fetchIndexes
        XCTAssertEqual(read.map(\.name), ["normalizedUserDefinedName", "internalIsArchived_lastModifiedDate"], "as Wire's cache lists them")

        let contents = folder.appendingPathComponent("Older.xcdatamodel")
        try FileManager.default.createDirectory(at: contents, withIntermediateDirectories: true)
        try Self.olderForms.write(to: contents.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let created = folder.appendingPathComponent("created.sqlite").path
        let made = try CLI.run(["create", created, "--model", contents.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let indexes = try SQLiteShell.read(created, "SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'Z\\_%' ESCAPE '\\' ORDER BY name")
        XCTAssertEqual(indexes, Self.coreDataSQL.joined(separator: "\n"))
        // The store's cache and the model file are one model: nothing to migrate, no change.
        let diff = try CLI.run(["model", created, "diff", contents.path])
        XCTAssertEqual(diff.status, 0, diff.stdout)
        XCTAssertTrue(diff.stdout.contains("The models are equivalent."), diff.stdout)
    }

    /// A model whose file already names its fetch indexes keeps those names: knowledgeC's
    /// cache holds `byNameIndex` and `compoundIndex`, and its store `Z_CustomMetadata_…` of
    /// them; `create` from that model makes the same two, to the letter.
    func testNamedFetchIndexesKeepTheirNames() throws {
        let knowledge = try Fixtures.copy("log2timeline_plaso/knowledgec-10.13.db", into: folder).path
        let exported = folder.appendingPathComponent("exported")
        XCTAssertEqual(try CLI.run(["model", knowledge, "export", exported.path]).status, 0)
        let model = try XCTUnwrap(FileManager.default.enumerator(atPath: exported.path)?.compactMap { $0 as? String }.first { $0.hasSuffix(".xcdatamodel") })
        let created = folder.appendingPathComponent("created.sqlite").path
        let made = try CLI.run(["create", created, "--model", exported.appendingPathComponent(model).path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let query = "SELECT sql FROM sqlite_master WHERE name IN ('Z_CustomMetadata_byNameIndex', 'Z_CustomMetadata_compoundIndex') ORDER BY name"
        let genuine = try SQLiteShell.read(knowledge, query)
        XCTAssertEqual(genuine.split(separator: "\n").count, 2)
        XCTAssertEqual(try SQLiteShell.read(created, query), genuine)
    }
}

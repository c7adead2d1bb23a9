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

    /// A model Xcode saved, with a fetch index `by<Attribute>` over that one attribute: Core
    /// Data makes a second fetch index beside it, named after the attribute. The model is
    /// DuckDuckGo's BookmarksModel 2 (BrowserServicesKit, Apache 2.0), its entity cut to the
    /// indexed attributes and a to-one, and its HTTPSUpgrade 3's entity; the SQL is Core
    /// Data's, from `Bookmarks_V2.sqlite` (framework 1251), which has `Z_BookmarkEntity_uuid`
    /// and `Z_BookmarkEntity_url` beside the model's `byUUID` and `byURL`, and from the iOS
    /// app's `AppRatingPrompt_v1` store (1338), which has `Z_HTTPSExcludedDomain_domainIndex`
    /// alone. A fetch index over a to-one makes no second index (Screen Time's `byUser`),
    /// nor one over two attributes (Bookmarks 3's `byUUID` over `uuid` and
    /// `isPendingDeletion`); a model this project wrote lists every index it has, so nothing
    /// is added to it.
    func testAOneAttributeFetchIndexInAnXcodeModelIndexesTheAttributeToo() throws {
        let xcode = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="21513" systemVersion="22D49" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="BookmarkEntity" representedClassName="BookmarkEntity" syncable="YES">
                    <attribute name="isPendingDeletion" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                    <attribute name="url" optional="YES" attributeType="String" versionHashModifier="2"/>
                    <attribute name="uuid" attributeType="String" versionHashModifier="2"/>
                    <relationship name="parent" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="BookmarkEntity"/>
                    <fetchIndex name="byUUID">
                        <fetchIndexElement property="uuid" type="Binary" order="ascending"/>
                    </fetchIndex>
                    <fetchIndex name="byURL">
                        <fetchIndexElement property="url" type="Binary" order="ascending"/>
                    </fetchIndex>
                    <fetchIndex name="byParent">
                        <fetchIndexElement property="parent" type="Binary" order="ascending"/>
                    </fetchIndex>
                    <fetchIndex name="byPending">
                        <fetchIndexElement property="uuid" type="Binary" order="ascending"/>
                        <fetchIndexElement property="isPendingDeletion" type="Binary" order="ascending"/>
                    </fetchIndex>
                </entity>
                <entity name="HTTPSExcludedDomain" representedClassName="HTTPSExcludedDomain" elementID="HTTPSWhitelistedDomain" syncable="YES">
                    <attribute name="domain" optional="YES" attributeType="String"/>
                    <fetchIndex name="domainIndex">
                        <fetchIndexElement property="domain" type="Binary" order="ascending"/>
                    </fetchIndex>
                </entity>
            </model>
            """
        let contents = folder.appendingPathComponent("Bookmarks.xcdatamodel")
        try FileManager.default.createDirectory(at: contents, withIntermediateDirectories: true)
        try xcode.write(to: contents.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let created = folder.appendingPathComponent("created.sqlite").path
        let made = try CLI.run(["create", created, "--model", contents.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let indexes = try SQLiteShell.read(created, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZBOOKMARKENTITY' ORDER BY name")
        XCTAssertEqual(indexes.split(separator: "\n").map(String.init),
                       ["ZBOOKMARKENTITY_ZPARENT_INDEX", "Z_BookmarkEntity_byPending", "Z_BookmarkEntity_byURL", "Z_BookmarkEntity_byUUID",
                        "Z_BookmarkEntity_url", "Z_BookmarkEntity_uuid"])
        XCTAssertEqual(try SQLiteShell.read(created, "SELECT sql FROM sqlite_master WHERE name IN ('Z_BookmarkEntity_uuid', 'Z_BookmarkEntity_url') ORDER BY name"),
                       ["CREATE INDEX Z_BookmarkEntity_url ON ZBOOKMARKENTITY (ZURL COLLATE BINARY ASC)",
                        "CREATE INDEX Z_BookmarkEntity_uuid ON ZBOOKMARKENTITY (ZUUID COLLATE BINARY ASC)"].joined(separator: "\n"))
        XCTAssertEqual(try SQLiteShell.read(created, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZHTTPSEXCLUDEDDOMAIN'"),
                       "CREATE INDEX Z_HTTPSExcludedDomain_domainIndex ON ZHTTPSEXCLUDEDDOMAIN (ZDOMAIN COLLATE BINARY ASC)")
        // The cache and the file are one model; and the model as this project writes it,
        // created again, makes the same indexes and no more.
        let diff = try CLI.run(["model", created, "diff", contents.path])
        XCTAssertTrue(diff.stdout.contains("The models are equivalent."), diff.stdout)
        let exported = folder.appendingPathComponent("exported")
        XCTAssertEqual(try CLI.run(["model", created, "export", exported.path]).status, 0)
        let written = try XCTUnwrap(FileManager.default.enumerator(atPath: exported.path)?.compactMap { $0 as? String }.first { $0.hasSuffix(".xcdatamodel") })
        let again = folder.appendingPathComponent("again.sqlite").path
        XCTAssertEqual(try CLI.run(["create", again, "--model", exported.appendingPathComponent(written).path]).status, 0)
        XCTAssertEqual(try SQLiteShell.read(again, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZBOOKMARKENTITY' ORDER BY name"), indexes)
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

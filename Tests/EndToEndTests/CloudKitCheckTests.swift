import Foundation
import XCTest

/// `cloudkit check`: a model against CloudKit's rules, each rule broken alone by a small
/// change to a model that keeps them all.
final class CloudKitCheckTests: ExampleStoreTestCase {
    /// Two entities that keep every rule: optional or defaulted attributes, optional
    /// relationships with inverses, nullify and cascade.
    static func model(note: String = "", noteAttributes: String = "", book: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="pages" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="scratch" attributeType="String" transient="YES"/>
                \(noteAttributes)
                <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="notes" inverseEntity="Book"/>
                \(note)
            </entity>
            <entity name="Book" representedClassName="Book" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="book" inverseEntity="Note"/>
                \(book)
            </entity>
        </model>
        """
    }

    func check(_ xml: String) throws -> (status: Int32, rows: [[String: Any]], text: String) {
        let file = folder.appendingPathComponent("m\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        try xml.write(to: file.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let json = try CLI.run(["cloudkit", store, "check", file.path, "--format", "json"])
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]], json.stderr)
        let text = try CLI.run(["cloudkit", store, "check", file.path])
        XCTAssertEqual(text.status, json.status)
        return (json.status, rows, text.stdout + text.stderr)
    }

    func testAModelThatKeepsEveryRule() throws {
        let r = try check(Self.model())
        XCTAssertEqual(r.status, 0, r.text)
        XCTAssertEqual(r.rows.count, 0)
        XCTAssertTrue(r.text.contains("the model meets CloudKit's rules"), r.text)
    }

    func testEachRuleBrokenAlone() throws {
        let cases: [(String, String, String, String)] = [
            // (rule, entity, property, model)
            ("no uniqueness constraints", "Note", "",
             Self.model(note: "<uniquenessConstraints><uniquenessConstraint><constraint value=\"title\"/></uniquenessConstraint></uniquenessConstraints>")),
            ("attributes optional or with a default", "Note", "body", Self.model(noteAttributes: "<attribute name=\"body\" attributeType=\"String\"/>")),
            ("no Undefined or Object ID attributes", "Note", "thing",
             Self.model(noteAttributes: "<attribute name=\"thing\" optional=\"YES\" attributeType=\"Undefined\" transient=\"NO\"/>")),
            ("relationships optional", "Book", "owner",
             Self.model(note: "<relationship name=\"owned\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Book\" inverseName=\"owner\" inverseEntity=\"Book\"/>",
                        book: "<relationship name=\"owner\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Note\" inverseName=\"owned\" inverseEntity=\"Note\"/>")),
            ("relationships with an inverse", "Book", "favourite",
             Self.model(book: "<relationship name=\"favourite\" optional=\"YES\" maxCount=\"1\" deletionRule=\"Nullify\" destinationEntity=\"Note\"/>")),
            ("no Deny delete rule", "Book", "notes", Self.model().replacingOccurrences(of: "deletionRule=\"Cascade\"", with: "deletionRule=\"Deny\"")),
            ("no ordered relationships", "Book", "notes", Self.model().replacingOccurrences(of: "toMany=\"YES\" deletionRule", with: "toMany=\"YES\" ordered=\"YES\" deletionRule")),
            ("no names Core Data's own record fields take", "Note", "entityName",
             Self.model(noteAttributes: "<attribute name=\"entityName\" optional=\"YES\" attributeType=\"String\"/>")),
        ]
        for (rule, entity, property, xml) in cases {
            let r = try check(xml)
            XCTAssertEqual(r.status, 1, "\(rule): \(r.text)")
            XCTAssertEqual(r.rows.map { "\($0["entity"]!) \($0["property"] as? String ?? "") \($0["rule"]!)" }, ["\(entity) \(property) \(rule)"], r.text)
            // The answer says it; a finding is no failure, so no error line.
            XCTAssertTrue(r.text.contains("the model breaks CloudKit's rules in 1 place(s): NSPersistentCloudKitContainer refuses to load this model"), r.text)
            XCTAssertFalse(r.text.contains("error:"), r.text)
        }
    }

    func testTheStoresModelAndTheModelOption() throws {
        // The example model (from Xcode) keeps mandatory attributes and a Deny rule.
        let own = try CLI.run(["cloudkit", store, "check", "--format", "json"])
        XCTAssertEqual(own.status, 1, own.stderr)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(own.stdout.utf8)) as? [[String: Any]])
        XCTAssertTrue(rows.contains { $0["entity"] as? String == "Tag" && $0["rule"] as? String == "no Deny delete rule" }, "\(rows)")
        let model = Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path
        let given = try CLI.run(["cloudkit", store, "check", "--model", model, "--format", "json"])
        XCTAssertEqual(given.status, 1, given.stderr)
        XCTAssertEqual(given.stdout, own.stdout)
        // Not a model file: a usage error that says what it takes.
        let wrong = try CLI.run(["cloudkit", store, "check", store])
        XCTAssertEqual(wrong.status, 64, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("takes a model file"), wrong.stderr)
        // check does not need a mirrored store; the other views do.
        XCTAssertEqual(try CLI.run(["cloudkit", store, "status"]).status, 1)
    }
}

import Foundation
import XCTest

/// A default in a model file is what Core Data reads it as, wherever a command reads one:
/// `Integer 32` with `defaultValueString="NO"` (Wire's `Conversation.mutedStatus`) is 0 in
/// every row Core Data migrated to that model, so `migrate`, `import` and a session's insert
/// write 0, and `doctor` finds no required attribute without a value.
final class ModelDefaultsTests: XCTestCase {
    static func model(muted: Bool) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="14315.18" systemVersion="17G65" minimumToolsVersion="Xcode 4.3" sourceLanguage="Objective-C" userDefinedModelVersionIdentifier="\(muted ? "2.54.0" : "2.53.0")">
            <entity name="Conversation" representedClassName="ZMConversation" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String" syncable="YES"/>
                \(muted ? #"<attribute name="mutedStatus" attributeType="Integer 32" defaultValueString="NO" usesScalarValueType="NO" elementID="mutedStatus" syncable="YES"/>"# : "")
                \(muted ? #"<attribute name="isPinned" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="NO" syncable="YES"/>"# : "")
            </entity>
        </model>
        """
    }

    func testANumberTypedDefaultSpelledNOIsZeroEverywhere() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        func write(_ name: String, muted: Bool) throws -> String {
            let model = folder.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
            try Data(Self.model(muted: muted).utf8).write(to: model.appendingPathComponent("contents"))
            return model.path
        }
        let before = try write("Before", muted: false), after = try write("After", muted: true)
        let old = folder.appendingPathComponent("Old.sqlite").path
        XCTAssertEqual(try CLI.run(["create", old, "--model", before]).status, 0)
        let csv = folder.appendingPathComponent("names.csv")
        try Data("name\nAda\nGrace\n".utf8).write(to: csv)
        let imported = try CLI.run(["import", old, csv.path, "--entity", "Conversation"])
        XCTAssertEqual(imported.status, 0, imported.stderr)

        // migrate: every row takes the default as Core Data stores it.
        let migrated = folder.appendingPathComponent("Migrated.sqlite").path
        let run = try CLI.run(["migrate", old, "--model", after, "--to", migrated])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try SQLiteShell.read(migrated, "SELECT ZNAME || ' ' || ZMUTEDSTATUS || ' ' || ZISPINNED FROM ZCONVERSATION ORDER BY Z_PK"), "Ada 0 1\nGrace 0 1")
        let doctor = try CLI.run(["doctor", migrated])
        XCTAssertEqual(doctor.status, 0, doctor.stdout)

        // create, then a session's insert and an import: the same 0 and 1.
        let fresh = folder.appendingPathComponent("Fresh.sqlite").path
        XCTAssertEqual(try CLI.run(["create", fresh, "--model", after]).status, 0)
        let inserted = try CLI.run([fresh], stdin: "insert Conversation name=\"Linus\"\nsave\n")
        XCTAssertEqual(inserted.status, 0, inserted.stderr)
        XCTAssertEqual(try CLI.run(["import", fresh, csv.path, "--entity", "Conversation"]).status, 0)
        XCTAssertEqual(try SQLiteShell.read(fresh, "SELECT DISTINCT ZMUTEDSTATUS || ' ' || ZISPINNED FROM ZCONVERSATION"), "0 1")
        XCTAssertEqual(try SQLiteShell.read(fresh, "SELECT count(*) FROM ZCONVERSATION"), "3")
        // The store's cache and the model file are one model (`NO` and the cache's 0 alike).
        let diff = try CLI.run(["model", fresh, "diff", after])
        XCTAssertEqual(diff.status, 0, diff.stdout)
    }
}

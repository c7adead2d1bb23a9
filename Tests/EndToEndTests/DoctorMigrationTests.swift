import Foundation
import XCTest

/// `doctor STORE --model NEW`: the rows a model version's migration would reject, each
/// rule against a store whose rows break it and one whose rows do not.
final class DoctorMigrationTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    func store(people: Int = 10) throws -> String {
        let into = folder.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        return try Fixtures.exampleStore(in: into, people: people).path
    }

    /// The example model with `change` applied to its contents: the next version.
    func nextVersion(_ change: (String) -> String) throws -> String {
        let current = Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld")
        let version = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: current.path).first { $0.hasSuffix(".xcdatamodel") })
        let xml = try String(contentsOf: current.appendingPathComponent(version).appendingPathComponent("contents"), encoding: .utf8)
        let changed = change(xml)
        XCTAssertNotEqual(changed, xml, "the change applies")
        let target = folder.appendingPathComponent("\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try changed.write(to: target.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return target.path
    }

    func migration(_ store: String, _ model: String) throws -> (status: Int32, rows: [String]) {
        let r = try CLI.run(["doctor", store, "--model", model, "--format", "json"])
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        let rows = (report["migration"] as? [[String: Any]] ?? []).map { f in
            "\(f["check"]!) \(f["entity"]!) \(f["property"]!) \(f["count"]!) \((f["detail"] as? String ?? "").contains("134110") ? "134110" : (f["detail"] as? String ?? "").contains("134111") ? "134111" : "?")"
        }
        return (r.status, rows)
    }

    func testANewRequiredAttributeWithoutDefault() throws {
        let model = try nextVersion {
            $0.replacingOccurrences(of: "<attribute name=\"isActive\"", with: "<attribute name=\"email\" attributeType=\"String\"/>\n<attribute name=\"isActive\"")
        }
        var r = try migration(try store(), model)
        XCTAssertEqual(r.rows, ["migration_required Person email 10 134110"])
        XCTAssertEqual(r.status, 1)
        // No person, nothing to reject.
        r = try migration(try store(people: 0), model)
        XCTAssertEqual(r.rows, [])
        XCTAssertEqual(r.status, 0)
    }

    func testANewUniquenessConstraint() throws {
        let model = try nextVersion {
            $0.replacingOccurrences(of: "<relationship name=\"tags\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Tag\" inverseName=\"people\" inverseEntity=\"Tag\"/>",
                                    with: "<relationship name=\"tags\" optional=\"YES\" toMany=\"YES\" deletionRule=\"Nullify\" destinationEntity=\"Tag\" inverseName=\"people\" inverseEntity=\"Tag\"/>"
                                        + "<uniquenessConstraints><uniquenessConstraint><constraint value=\"name\"/></uniquenessConstraint></uniquenessConstraints>")
        }
        let repeating = try store()
        try SQLiteShell.run(repeating, "UPDATE ZPERSON SET ZNAME = 'Ann' WHERE Z_PK IN (2, 5, 7)")
        var r = try migration(repeating, model)
        XCTAssertEqual(r.rows, ["migration_unique Person name 3 134111"])
        XCTAssertEqual(r.status, 1)
        // The finding names the repeated value and how many groups repeat.
        let text = try CLI.run(["doctor", repeating, "--model", model, "--format", "json"]).stdout
        XCTAssertTrue(text.contains(#"broken by 3 existing row(s) in 1 group(s) of repeated values (\"Ann\")"#), text)
        let distinct = try store()
        try SQLiteShell.run(distinct, "UPDATE ZPERSON SET ZNAME = 'person ' || Z_PK")
        r = try migration(distinct, model)
        XCTAssertEqual(r.rows, [])
        XCTAssertEqual(r.status, 0)
    }

    func testAnAttributeMadeRequired() throws {
        let model = try nextVersion {
            $0.replacingOccurrences(of: "<attribute name=\"birthday\" optional=\"YES\" attributeType=\"Date\"",
                                    with: "<attribute name=\"birthday\" attributeType=\"Date\"")
        }
        let holes = try store()
        try SQLiteShell.run(holes, "UPDATE ZPERSON SET ZBIRTHDAY = 0; UPDATE ZPERSON SET ZBIRTHDAY = NULL WHERE Z_PK IN (3, 4)")
        var r = try migration(holes, model)
        XCTAssertEqual(r.rows, ["migration_required Person birthday 2 134110"])
        XCTAssertEqual(r.status, 1)
        // model diff, given this store, shows the same rows under its verdict.
        let diff = try CLI.run(["model", holes, "diff", model])
        XCTAssertTrue(diff.stdout.contains("rows: 2 Person row(s) break it"), diff.stdout)
        XCTAssertTrue(diff.stdout.contains("Person/p3, Person/p4"), diff.stdout)
        let full = try store()
        try SQLiteShell.run(full, "UPDATE ZPERSON SET ZBIRTHDAY = 0")
        r = try migration(full, model)
        XCTAssertEqual(r.rows, [])
        XCTAssertEqual(r.status, 0)
    }
}

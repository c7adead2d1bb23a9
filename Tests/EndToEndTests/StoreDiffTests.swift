import Foundation
import XCTest

/// `cdinspect diff A B` and a session's `diff --store`: what changed between a snapshot and
/// the store, object by object, matched by primary key or by a key, with diff(1)'s exit
/// statuses.
final class StoreDiffTests: ExampleStoreTestCase {
    private var library: [String: String] { ["XDG_DATA_HOME": folder.appendingPathComponent("data").path] }

    private func cdinspect(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(arguments, environment: library, timeout: 120)
    }

    private func document(_ arguments: [String], status: Int32 = 1, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try cdinspect(arguments + ["--format", "json"])
        XCTAssertEqual(result.status, status, result.stderr, file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
    }

    private func entity(_ name: String, in document: [String: Any]) throws -> [String: Any] {
        try XCTUnwrap((document["entities"] as? [[String: Any]])?.first { $0["entity"] as? String == name }, "\(document)")
    }

    func testWhatChangedSinceASnapshot() throws {
        XCTAssertEqual(try cdinspect(["snapshot", store, "clean"]).status, 0)
        let same = try cdinspect(["diff", "clean", store])
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertTrue(same.stdout.hasSuffix("no difference\n"), same.stdout)

        let changes = try cdinspect([store, "-c", "update Person/p4 age=99", "-c", "insert Person name=zed id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F age=7",
                                     "-c", "delete Car/p3", "-c", "save"])
        XCTAssertEqual(changes.status, 0, changes.stderr)
        let tagged = try SQLiteShell.run(store, "SELECT Z_4TAGS FROM Z_3TAGS WHERE Z_3PEOPLE = 5 LIMIT 1")
        try SQLiteShell.run(store, "DELETE FROM Z_3TAGS WHERE Z_3PEOPLE = 5 AND Z_4TAGS = \(tagged)")

        // The changes that turn the snapshot into the store: what happened since.
        let diff = try document(["diff", "clean", store])
        let people = try entity("Person", in: diff)
        XCTAssertEqual(people["matchedBy"] as? String, "primary key")
        let inserted = try XCTUnwrap(people["inserted"] as? [[String: Any]])
        XCTAssertEqual(inserted.map { $0["name"] as? String }, ["zed"])
        XCTAssertEqual(inserted.first?["objectID"] as? String, uri("Person/p51"))
        let updated = try XCTUnwrap(people["updated"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: updated.map { ($0["objectID"] as? String ?? "", $0["changes"] as? [String: Any] ?? [:]) })
        XCTAssertEqual((byID[uri("Person/p4")]?["age"] as? [String: Any])?["new"] as? Int, 99)
        XCTAssertNotNil((byID[uri("Person/p4")]?["age"] as? [String: Any])?["old"] as? Int)
        XCTAssertEqual((byID[uri("Person/p5")]?["tags"] as? [String: Any])?["removed"] as? [String], [uri("Tag/p\(tagged)")])
        // The deleted car leaves its owner's to-many, and is listed whole.
        let cars = try entity("Car", in: diff)
        let deletedCars = (cars["deleted"] as? [[String: Any]] ?? []) + ((try? entity("SportsCar", in: diff))?["deleted"] as? [[String: Any]] ?? [])
        XCTAssertEqual(deletedCars.count, 1, "\(diff)")
        XCTAssertEqual(diff["model"] as? NSNull, NSNull())

        // Backwards, the same changes the other way round; a session says it the same way.
        let back = try document(["diff", store, "clean"])
        XCTAssertEqual((try entity("Person", in: back)["deleted"] as? [[String: Any]])?.map { $0["name"] as? String }, ["zed"])
        let session = try cdinspect([store, "-c", "diff --store clean --entity Person --format csv"])
        XCTAssertEqual(session.status, 1)
        XCTAssertEqual(session.stderr, "")
        // For people, the answer ends by saying so; a difference is a finding, not an error (exit 1, as diff(1)).
        let table = try cdinspect(["diff", "clean", store])
        XCTAssertEqual(table.status, 1)
        XCTAssertEqual(table.stderr, "")
        XCTAssertTrue(table.stdout.hasSuffix("the stores differ: 1 inserted, 4 updated, 1 deleted\n"), table.stdout)
        XCTAssertTrue(session.stdout.hasPrefix("entity,change,objectID,key,old,new\n"), session.stdout)
        XCTAssertTrue(session.stdout.contains("Person,deleted,\(uri("Person/p51"))"), session.stdout)
        XCTAssertTrue(session.stdout.contains("Person,updated,\(uri("Person/p4")),age,99,"), session.stdout)
        XCTAssertFalse(session.stdout.split(separator: "\n").contains { $0.hasPrefix("Car,") || $0.hasPrefix("SportsCar,") }, session.stdout)
    }

    func testStoresOfTwoOriginsAreMatchedByKey() throws {
        let other = folder.appendingPathComponent("Other.sqlite").path
        try FileManager.default.copyItem(atPath: store, toPath: other)
        try SQLiteShell.run(other, "UPDATE Z_METADATA SET Z_UUID = 'AAAAAAAA-0000-0000-0000-000000000000'; UPDATE ZPERSON SET ZAGE = 1 WHERE Z_PK = 3")
        // Another store: Person by its UUID id, Car and its sub-entity by --match, Tag unmatched.
        let diff = try document(["diff", store, other, "--match", "Car=plate"])
        let people = try entity("Person", in: diff)
        XCTAssertEqual(people["matchedBy"] as? String, "id")
        let updated = try XCTUnwrap(people["updated"] as? [[String: Any]])
        XCTAssertEqual(updated.count, 1)
        XCTAssertEqual(updated.first?["otherObjectID"] as? String, uri("Person/p3", uuid: "AAAAAAAA-0000-0000-0000-000000000000"))
        XCTAssertEqual(try entity("SportsCar", in: diff)["matchedBy"] as? String, "plate")
        let left = try XCTUnwrap(diff["notCompared"] as? [[String: Any]])
        XCTAssertEqual(left.map { $0["entity"] as? String }, ["Tag"])

        let repeated = try cdinspect(["diff", store, other, "--match", "Person=age"])
        XCTAssertEqual(repeated.status, 1)
        XCTAssertTrue(repeated.stderr.contains("Person objects share one age"), repeated.stderr)
        let badMatch = try cdinspect(["diff", store, other, "--match", "Person"])
        XCTAssertEqual(badMatch.status, 64)
        XCTAssertTrue(badMatch.stderr.contains("--match takes ENTITY=KEY"), badMatch.stderr)
        let missing = try cdinspect(["diff", store, folder.appendingPathComponent("none.sqlite").path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("none.sqlite"), missing.stderr)
    }

    func testAFixtureWithHistoryAgainstItsSnapshot() throws {
        let fixture = try Fixtures.copy("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V2.sqlite", into: folder).path
        let target = folder.appendingPathComponent("before").path
        XCTAssertEqual(try cdinspect(["snapshot", fixture, "--to", target]).status, 0)
        XCTAssertEqual(try cdinspect(["diff", target, fixture]).status, 0)
        // An app's change: an author's age, saved with history, as the app's context would.
        XCTAssertEqual(try cdinspect([fixture, "-c", "update Author/p1 age=77", "-c", "save"]).status, 0)
        let diff = try document(["diff", target, fixture])
        let updated = try XCTUnwrap(try entity("Author", in: diff)["updated"] as? [[String: Any]])
        XCTAssertEqual(updated.count, 1)
        XCTAssertEqual(((updated.first?["changes"] as? [String: Any])?["age"] as? [String: Any])?["new"] as? Int, 77)
        // The history the save wrote is not an entity of the model: the diff is of objects.
        XCTAssertEqual((diff["entities"] as? [[String: Any]])?.filter { ($0["updated"] as? [Any])?.isEmpty == false }.count, 1)
    }
}

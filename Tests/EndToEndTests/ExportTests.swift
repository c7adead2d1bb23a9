import Foundation
import XCTest

/// `export`: the store as one JSON document, every object with its attributes and
/// relationships, values as stored (external data and archives inline), on the example
/// store and on genuine fixtures.
final class ExportTests: ExampleStoreTestCase {
    private func export(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try CLI.run(["export"] + arguments, timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], file: file, line: line)
    }

    private func objects(_ entity: String, in document: [String: Any]) -> [[String: Any]] {
        (document["entities"] as? [[String: Any]])?.first { $0["entity"] as? String == entity }?["objects"] as? [[String: Any]] ?? []
    }

    func testEveryObjectWithItsRelationshipsAndItsStoredBytes() throws {
        // A photo kept in the external data folder, as Core Data keeps a large one.
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZPHOTO = CAST(x'02' || '0D1A2B3C-0000-4000-8000-000000000001' AS BLOB) WHERE Z_PK = 6")
        let external = folder.appendingPathComponent(".People_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        try Data("a photo".utf8).write(to: external.appendingPathComponent("0D1A2B3C-0000-4000-8000-000000000001"))

        let document = try export([store])
        XCTAssertEqual(document["storeUUID"] as? String, Fixtures.exampleUUID)
        XCTAssertEqual((document["versionHashes"] as? [String: String])?.keys.sorted(), ["Car", "Person", "SportsCar", "Tag"])
        let entities = try XCTUnwrap(CLI.json(["entities", store, "--format", "json"]) as? [[String: Any]])
        for entity in entities {
            let name = entity["name"] as? String ?? ""
            XCTAssertEqual(objects(name, in: document).count, entity["own"] as? Int, name)
        }
        let people = objects("Person", in: document)
        let dave5 = try XCTUnwrap(people.first { $0["objectID"] as? String == uri("Person/p6") })
        XCTAssertEqual(dave5["photo"] as? String, Data("a photo".utf8).base64EncodedString())
        // Relationships as object IDs; a sub-entity's object by its own entity.
        let tags = try SQLiteShell.read(store, "SELECT group_concat(Z_4TAGS) FROM (SELECT Z_4TAGS FROM Z_3TAGS WHERE Z_3PEOPLE = 1 ORDER BY Z_4TAGS)")
        XCTAssertEqual(people.first?["tags"] as? [String], tags.split(separator: ",").map { uri("Tag/p\($0)") })
        let sports = objects("SportsCar", in: document)
        let owner = try XCTUnwrap(sports.first?["owner"] as? String)
        let ownerObject = try XCTUnwrap(people.first { $0["objectID"] as? String == owner })
        XCTAssertTrue((ownerObject["cars"] as? [String] ?? []).contains(try XCTUnwrap(sports.first?["objectID"] as? String)))
        XCTAssertTrue((ownerObject["cars"] as? [String] ?? []).allSatisfy { $0.contains("/SportsCar/") || $0.contains("/Car/") })

        // A named entity is that entity; with --follow, the entities it reaches too. --to
        // writes the same document.
        let tagsOnly = try export([store, "Tag"])
        XCTAssertEqual(Set((tagsOnly["entities"] as? [[String: Any]])?.compactMap { $0["entity"] as? String } ?? []), ["Tag"])
        let followed = try export([store, "Tag", "--follow"])
        XCTAssertEqual(Set((followed["entities"] as? [[String: Any]])?.compactMap { $0["entity"] as? String } ?? []),
                       ["Tag", "Person", "Car", "SportsCar"])
        let file = folder.appendingPathComponent("out.json")
        let written = try CLI.run(["export", store, "--to", file.path])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(written.stdout, "")
        let fromFile = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        XCTAssertEqual(NSDictionary(dictionary: fromFile), NSDictionary(dictionary: document))
        let unknown = try CLI.run(["export", store, "Nobody"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("Nobody"), unknown.stderr)
        XCTAssertEqual(try CLI.run(["export", store, "--to", "/nonexistent/folder/out.json"]).status, 1)
    }

    func testGenuineStoresOfThreeShapes() throws {
        for fixture in ["alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V2.sqlite",
                        "RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite",
                        "Karim-ezzedine_CartKit/CartKitSwiftData_v1.sqlite"] {
            let copy = try Fixtures.copy(fixture, into: try Fixtures.temporaryDirectory(self)).path
            let document = try export([copy])
            let entities = try XCTUnwrap(CLI.json(["entities", copy, "--format", "json"]) as? [[String: Any]])
            for entity in entities where entity["abstract"] as? Bool != true {
                let name = entity["name"] as? String ?? ""
                XCTAssertEqual(objects(name, in: document).count, entity["own"] as? Int, "\(fixture) \(name)")
            }
        }
    }

    /// `export` selects objects as `fetch` does: `--where` with `--arg`, `--keys`; and the
    /// round trip the README shows, fetch → edit → import, changes the objects fetched and
    /// adds none.
    func testExportSelectsAsFetchDoesAndTheRoundTripUpdatesInPlace() throws {
        let older = try export([store, "Person", "--where", "age > %@", "--arg", "40", "--keys", "name,age"])
        let people = objects("Person", in: older)
        XCTAssertEqual(String(people.count), try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZAGE > 40"))
        XCTAssertEqual(Set(people.flatMap { $0.keys }), ["objectID", "name", "age"])
        XCTAssertEqual(try CLI.run(["export", store, "Person", "Tag", "--where", "age > 40"]).status, 64)

        let before = try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON")
        let fetched = try CLI.run(["fetch", store, "Person", "--where", "age > 40", "--keys", "name", "--format", "json"])
        var objects = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(fetched.stdout.utf8)) as? [[String: Any]])
        objects[0]["name"] = "Renamed"
        let file = folder.appendingPathComponent("edited.json")
        try JSONSerialization.data(withJSONObject: objects).write(to: file)
        let dry = try CLI.run(["import", store, file.path, "--entity", "Person", "--dry-run"])
        XCTAssertTrue(dry.stdout.hasPrefix("would insert nothing; would update 1 Person; \(objects.count - 1) unchanged"), dry.stdout)
        let run = try CLI.run(["import", store, file.path, "--entity", "Person"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON"), before, "no copies")
        let key = try XCTUnwrap((objects[0]["objectID"] as? String)?.split(separator: "p").last)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT ZNAME FROM ZPERSON WHERE Z_PK = \(key)"), "Renamed")
    }

}

import Foundation
import XCTest

/// A Binary attribute that allows external storage (the example's Person.photo), written as
/// Core Data writes it: up to 131,072 bytes inline behind `01`; more in a file of
/// `.People_SUPPORT/_EXTERNAL_DATA` named by an upper-case UUID, the column holding `02`, the
/// UUID and a NUL (38 bytes). Every write path (import, a save of inserts and updates) does
/// this, a write that fails leaves no file, and a replaced or deleted value's file goes after
/// the commit.
final class ExternalDataTests: XCTestCase {
    var folder: URL!
    var store: String!

    var external: URL { folder.appendingPathComponent(".People_SUPPORT/_EXTERNAL_DATA") }

    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: external.path)) ?? []).sorted() }

    /// `count` bytes of a pattern that differs with `seed`.
    func bytes(_ count: Int, seed: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ $0 >> 9) } }

    /// The photo column's bytes of the person named `name`.
    func column(_ name: String) throws -> [UInt8] {
        let hex = try SQLiteShell.read(store, "SELECT hex(ZPHOTO) FROM ZPERSON WHERE ZNAME = '\(name)'").trimmingCharacters(in: .whitespacesAndNewlines)
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    /// The file a 38-byte reference names, checked to be Core Data's form.
    func referencedFile(_ stored: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> String? {
        XCTAssertEqual(stored.count, 38, file: file, line: line)
        XCTAssertEqual(stored.first, 0x02, file: file, line: line)
        XCTAssertEqual(stored.last, 0x00, file: file, line: line)
        let name = String(decoding: stored.dropFirst().dropLast(), as: UTF8.self)
        XCTAssertNotNil(UUID(uuidString: name), name, file: file, line: line)
        XCTAssertEqual(name, name.uppercased(), file: file, line: line)
        return name
    }

    func person(_ name: String, _ id: Int, photo: [UInt8]? = nil, age: String = "30") -> String {
        let uuid = String(format: "3F2504E0-4F89-41D3-9A0C-%012d", id)
        return "{\"name\": \"\(name)\", \"id\": \"\(uuid)\", \"age\": \(age)"
            + (photo.map { ", \"photo\": \"\(Data($0).base64EncodedString())\"" } ?? "") + "}"
    }

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    func testImportWritesALargeValueToAFileAndASmallOneInline() throws {
        store = try Fixtures.exampleStore(in: folder, people: 0).path
        let large = bytes(200 * 1024, seed: 1), small = bytes(100 * 1024, seed: 2)
        let file = folder.appendingPathComponent("people.json")
        try "[\(person("large", 1, photo: large)), \(person("small", 2, photo: small))]".write(to: file, atomically: true, encoding: .utf8)
        let imported = try CLI.run(["import", store, file.path, "--entity", "Person"])
        XCTAssertEqual(imported.status, 0, imported.stderr)

        let name = try XCTUnwrap(referencedFile(try column("large")))
        XCTAssertEqual(files(), [name], "one file, renamed from its .interim")
        XCTAssertEqual(try Data(contentsOf: external.appendingPathComponent(name)), Data(large))
        XCTAssertEqual(try column("small"), [0x01] + small)

        // Export reads both back byte for byte; a snapshot carries the file.
        let out = folder.appendingPathComponent("out.json")
        XCTAssertEqual(try CLI.run(["export", store, "Person", "--to", out.path]).status, 0)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
        let objects = try XCTUnwrap(((document["entities"] as? [[String: Any]])?.first { $0["entity"] as? String == "Person" })?["objects"] as? [[String: Any]])
        let photos = Dictionary(uniqueKeysWithValues: objects.map { ($0["name"] as? String ?? "", $0["photo"] as? String ?? "") })
        XCTAssertEqual(Data(base64Encoded: photos["large"] ?? ""), Data(large))
        XCTAssertEqual(Data(base64Encoded: photos["small"] ?? ""), Data(small))
        let snapshot = try XCTUnwrap(CLI.json(["snapshot", store, "--to", folder.appendingPathComponent("kept").path, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(snapshot["externalDataFiles"] as? Int, 1)

        // The same document again, as an upsert by name: the file's value given again keeps its file.
        let reference = try column("large")
        let again = try CLI.run(["import", store, file.path, "--entity", "Person", "--upsert", "name"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(files(), [name])
        XCTAssertEqual(try column("large"), reference)
    }

    func testAFailedImportLeavesNoFileAndNoRow() throws {
        store = try Fixtures.exampleStore(in: folder, people: 0).path
        let file = folder.appendingPathComponent("people.json")
        try "[\(person("large", 1, photo: bytes(200 * 1024, seed: 3))), \(person("small", 2, photo: bytes(100 * 1024, seed: 4))), \(person("bad", 3, age: "\"old\""))]"
            .write(to: file, atomically: true, encoding: .utf8)
        let failed = try CLI.run(["import", store, file.path, "--entity", "Person"])
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertEqual(try CLI.run(["count", store, "Person"]).stdout, "0\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".People_SUPPORT").path),
                       "no file, and no folder made for one: \(files())")
        // Skipping the invalid object keeps the others, and their file.
        let skipped = try CLI.run(["import", store, file.path, "--entity", "Person", "--mode", "skip-invalid"])
        XCTAssertEqual(skipped.status, 0, skipped.stderr)
        XCTAssertEqual(files().count, 1)
        XCTAssertFalse(files().contains { $0.hasSuffix(".interim") })
    }

    /// A save replaces a file's value: the new value's file is there, the old one gone, after
    /// the commit; setting nil or deleting the object removes its file; a batch delete leaves
    /// it, as Core Data's does, and doctor names the orphan.
    func testASaveReplacesAndRemovesFilesAfterItCommits() throws {
        store = try Fixtures.exampleStore(in: folder, people: 30, photos: [204_800]).path
        // Every tenth person from dave3 has a photo: dave3, dave13, dave23 (Person/p4, p14, p24).
        let before = files()
        XCTAssertEqual(before.count, 3)
        let p4 = try XCTUnwrap(referencedFile(try column("dave3")))
        let p14 = try XCTUnwrap(referencedFile(try column("dave13")))
        let p24 = try XCTUnwrap(referencedFile(try column("dave23")))

        let replacement = bytes(150 * 1024, seed: 5)
        let script = "update Person/p4 photo=\(Data(replacement).base64EncodedString())\nupdate Person/p14 photo=nil\n"
            + "insert Person name=new id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F photo=\(Data(bytes(140_000, seed: 6)).base64EncodedString())\nsave\n"
        let saved = try CLI.run([store], stdin: script)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let now = try XCTUnwrap(referencedFile(try column("dave3")))
        XCTAssertNotEqual(now, p4)
        XCTAssertEqual(try Data(contentsOf: external.appendingPathComponent(now)), Data(replacement))
        XCTAssertEqual(try column("dave13"), [])
        let inserted = try XCTUnwrap(referencedFile(try column("new")))
        XCTAssertEqual(files(), [now, p24, inserted].sorted())

        // A deleted object's file goes with it.
        XCTAssertEqual(try CLI.run([store, "-c", "delete Person/p24", "-c", "save"]).status, 0)
        XCTAssertEqual(files(), [now, inserted].sorted())
        _ = p14

        // A batch delete leaves the file, as Core Data's does; doctor names it.
        XCTAssertEqual(try CLI.run(["batch-delete", store, "Person", "--where", "name == 'new'"]).status, 0)
        XCTAssertEqual(files(), [now, inserted].sorted())
        let doctor = try XCTUnwrap(CLI.json(["doctor", store, "--format", "json"]) as? [String: Any])
        let orphans = (doctor["findings"] as? [[String: Any]] ?? []).filter { $0["check"] as? String == "external_orphan" }
        XCTAssertEqual(orphans.count, 1, "\(doctor)")
        XCTAssertTrue((orphans.first?["detail"] as? String ?? "").contains(inserted), "\(orphans)")
    }

    /// A batch update cannot write a file: a value over the threshold is refused, and the
    /// store is as it was.
    func testABatchUpdateRefusesAValueThatBelongsInAFile() throws {
        store = try Fixtures.exampleStore(in: folder, people: 5).path
        // (In a session: the value is longer than one argument may be.)
        let refused = try CLI.run([store], stdin: "batch-update Person --set photo='\(Data(bytes(140_000, seed: 7)).base64EncodedString())'\n")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("goes to an external file, which a batch update"), refused.stderr)
        XCTAssertEqual(files(), [])
    }
}

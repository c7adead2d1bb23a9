import Foundation
import XCTest

/// Deleted, not gone: `recover` lists the objects another process deleted, from the `-wal`'s
/// earlier generations, named as Core Data names them, with their last values; `--export`
/// and `import --upsert objectID` put them back under their own object IDs.
final class RecoverTests: ExampleStoreTestCase {
    func everything(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix("before") {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    func testRecoverListsWhatAnotherProcessDeletedAndImportPutsItBack() throws {
        let before = folder.appendingPathComponent("before").path
        XCTAssertEqual(try CLI.run(["snapshot", store, "--to", before]).status, 0)
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        let car = try XCTUnwrap(Int(try SQLiteShell.read(store, "SELECT Z_PK FROM ZCAR WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Car') ORDER BY Z_PK LIMIT 1 OFFSET 2")
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let person = try SQLiteShell.read(store, "SELECT ZNAME || '|' || ZAGE FROM ZPERSON WHERE Z_PK = 2").trimmingCharacters(in: .whitespacesAndNewlines)
        // Core Data-shaped deletes by another process, left in the -wal: the person's join rows
        // removed and the to-ones pointing at it nullified; then a car on its own.
        try SQLiteShell.commitLeavingWAL(store, [
            "BEGIN; DELETE FROM Z_3TAGS WHERE Z_3PEOPLE = 2; UPDATE ZCAR SET ZOWNER = NULL, Z_OPT = Z_OPT + 1 WHERE ZOWNER = 2; "
                + "DELETE FROM ZPERSON WHERE Z_PK = 2; COMMIT;",
            "DELETE FROM ZCAR WHERE Z_PK = \(car);",
        ])
        try? FileManager.default.removeItem(atPath: store + "-shm")
        let files = try everything(folder)

        let listed = try XCTUnwrap(CLI.json(["recover", store, "--format", "json"]) as? [[String: Any]])
        let deleted = listed.filter { $0["state"] as? String == "deleted" }
        XCTAssertEqual(deleted.compactMap { $0["objectID"] as? String }, [uri("Person/p2"), uri("Car/p\(car)")], "only the deleted objects, no live one")
        XCTAssertEqual(deleted.compactMap { $0["entity"] as? String }, ["Person", "Car"])
        let values = try XCTUnwrap(deleted.first?["values"] as? [String: Any])
        XCTAssertEqual("\(values["name"] ?? "")|\(values["age"] ?? "")", person, "the person's last values")
        let source = try XCTUnwrap(deleted.first?["source"] as? [String: Any])
        XCTAssertEqual(source["generation"] as? String, "w0")
        XCTAssertEqual(source["deletedBy"] as? String, "w1")
        XCTAssertEqual((deleted.first?["confidence"] as? [String: Any])?["level"] as? String, "exact")
        // The evidence without the bytes: the keys below Z_MAX no row holds, and which were read back.
        let missing = listed.filter { $0["state"] as? String == "keys-missing" }
        let personKeys = try XCTUnwrap(missing.first { $0["entity"] as? String == "Person" }?["values"] as? [String: Any])
        XCTAssertEqual(personKeys["keys"] as? String, "2")
        XCTAssertEqual(personKeys["recovered"] as? Int, 1)
        XCTAssertEqual(try everything(folder), files, "recover changed or created a file")

        // The MCP server's recover tool answers the same records, and reads only.
        let server = try MCPPipe([store, "--immutable"])
        try server.handshake()
        try server.write(try MCPHostileTests.call(1, "recover", ["entities": ["Car"]]) + MCPHostileTests.call(2, "recover", ["generation": "w1"]))
        let answer = try server.toolText(1)
        XCTAssertFalse(answer.isError, answer.text)
        XCTAssertTrue(answer.text.contains(uri("Car/p\(car)")) && !answer.text.contains(uri("Person/p2")), answer.text)
        // At w1 the car is not deleted yet: only the person is.
        let atW1 = try server.toolText(2)
        XCTAssertTrue(atW1.text.contains(uri("Person/p2")) && !atW1.text.contains(uri("Car/p\(car)\"")), atW1.text)
        XCTAssertEqual(server.finish().status, 0)
        XCTAssertEqual(try everything(folder), files, "the MCP server changed or created a file")

        // Only some entities.
        let cars = try XCTUnwrap(CLI.json(["recover", store, "Car", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(cars.filter { $0["state"] as? String == "deleted" }.compactMap { $0["objectID"] as? String }, [uri("Car/p\(car)")])

        // Put back: under their own object IDs, equal to the snapshot taken before the deletes.
        let exported = folder.appendingPathComponent("recovered.json").path
        let export = try CLI.run(["recover", store, "--export", exported])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stderr.contains("wrote 2 recovered objects"), export.stderr)
        let imported = try CLI.run(["import", store, exported, "--upsert", "objectID"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("inserted 1 Person, 1 Car"), imported.stdout)
        let diff = try CLI.run(["diff", before, store, "--format", "csv"])
        XCTAssertEqual(diff.status, 0, diff.stdout + diff.stderr)
        XCTAssertEqual(diff.stdout, "entity,change,objectID,key,old,new\n")
    }

    /// After a checkpoint the -wal's generations are gone: the deleted objects are carved from
    /// the main file's free space, each under its entity, with its values (and its object ID
    /// where its cell is whole), and no live object is listed.
    func testAfterACheckpointTheDeletedObjectsAreCarvedFromFreeSpace() throws {
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        let names = try SQLiteShell.read(store, "SELECT ZNAME FROM ZPERSON WHERE Z_PK IN (5, 6, 20) ORDER BY Z_PK")
            .split(separator: "\n").map(String.init)
        // The sqlite3 shell's Debian build turns secure_delete on; Core Data's SQLite leaves it off.
        try SQLiteShell.run(store, "PRAGMA secure_delete = 0; BEGIN; DELETE FROM Z_3TAGS WHERE Z_3PEOPLE IN (5, 6, 20); "
                            + "UPDATE ZCAR SET ZOWNER = NULL, Z_OPT = Z_OPT + 1 WHERE ZOWNER IN (5, 6, 20); "
                            + "DELETE FROM ZPERSON WHERE Z_PK IN (5, 6, 20); COMMIT; PRAGMA wal_checkpoint(TRUNCATE);")
        let listed = try XCTUnwrap(CLI.json(["recover", store, "Person", "--format", "json"]) as? [[String: Any]])
        let deleted = listed.filter { $0["state"] as? String == "deleted" }
        XCTAssertEqual(Set(deleted.compactMap { ($0["values"] as? [String: Any])?["name"] as? String }), Set(names), "\(deleted)")
        XCTAssertTrue(deleted.allSatisfy { $0["entity"] as? String == "Person" && $0["table"] as? String == "ZPERSON" })
        XCTAssertTrue(deleted.allSatisfy { ["freeblock", "unallocated", "free-page"].contains(($0["source"] as? [String: Any])?["kind"] as? String ?? "") })
        // Whole cells keep their object IDs; none names a live object.
        let live = Set(try SQLiteShell.read(store, "SELECT Z_PK FROM ZPERSON").split(separator: "\n").map { uri("Person/p\($0)") })
        for id in deleted.compactMap({ $0["objectID"] as? String }) {
            XCTAssertTrue([uri("Person/p5"), uri("Person/p6"), uri("Person/p20")].contains(id), id)
            XCTAssertFalse(live.contains(id), id)
        }
        // Put back: those whose key survived under it, the others under new keys.
        let exported = folder.appendingPathComponent("carved.json").path
        XCTAssertEqual(try CLI.run(["recover", store, "Person", "--export", exported]).status, 0)
        let imported = try CLI.run(["import", store, exported, "--upsert", "objectID"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("inserted 3 Person"), imported.stdout)
        XCTAssertEqual(Set(try SQLiteShell.read(store, "SELECT ZNAME FROM ZPERSON WHERE ZNAME IN (\(names.map { "'\($0)'" }.joined(separator: ",")))")
            .split(separator: "\n").map(String.init)), Set(names))
    }

    /// A dry run writes nothing, and so folds none of the -wal's saves away either.
    func testADryRunImportLeavesTheWALsSavesReadable() throws {
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        try SQLiteShell.commitLeavingWAL(store, ["UPDATE ZPERSON SET ZNAME = 'renamed', Z_OPT = Z_OPT + 1 WHERE Z_PK = 4;"])
        let file = folder.appendingPathComponent("one.json").path
        let one = try CLI.run(["fetch", store, "Person", "--limit", "1", "--format", "json"])
        try Data(one.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let run = try CLI.run(["import", store, file, "--entity", "Person", "--dry-run"])
        // The object's ID names this store: an import updates it (here, to what it is).
        XCTAssertTrue(run.stdout.contains("would insert nothing; 1 unchanged"), run.stdout + run.stderr)
        XCTAssertEqual(run.status, 0, run.stderr)
        let listed = try XCTUnwrap(CLI.json(["generations", store, "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(listed.filter { $0["kind"] as? String == "commit" }.count, 1, "the dry run checkpointed the -wal")
    }

    func testAStoreWithNothingDeletedRecoversNothing() throws {
        let run = try CLI.run(["recover", store, "--format", "json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let listed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        XCTAssertTrue(listed.allSatisfy { $0["state"] as? String == "keys-missing" }, run.stdout)
        let unknown = try CLI.run(["recover", store, "Nope"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.hasPrefix("cdinspect: error: "), unknown.stderr)
        XCTAssertEqual(unknown.stderr.split(separator: "\n").count, 1, unknown.stderr)
    }
}

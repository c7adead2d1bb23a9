import Foundation
import XCTest
@testable import ManagedStore

/// Every save the disk still holds: the generations a store's `-wal` keeps, listed, read in
/// place with `--generation`, compared and pinned, checked against what SQLite itself reads
/// from a copy of the files as they were right after each save.
final class PastGenerationTests: ExampleStoreTestCase {
    /// Core Data-shaped saves another process makes, one transaction each.
    static let saves = [
        // An insert raising Z_MAX.
        "BEGIN; INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) VALUES (51, 3, 1, 'newcomer', 5); "
            + "UPDATE Z_PRIMARYKEY SET Z_MAX = 51 WHERE Z_NAME = 'Person'; COMMIT;",
        // An update bumping Z_OPT.
        "UPDATE ZPERSON SET ZNAME = 'renamed', Z_OPT = Z_OPT + 1 WHERE Z_PK = 2;",
        // A delete with its join rows, the to-one pointing at it nullified.
        "BEGIN; DELETE FROM Z_3TAGS WHERE Z_3PEOPLE = 3; UPDATE ZCAR SET ZOWNER = NULL, Z_OPT = Z_OPT + 1 WHERE ZOWNER = 3; "
            + "DELETE FROM ZPERSON WHERE Z_PK = 3; COMMIT;",
        // 200 inserts in one save.
        "BEGIN; WITH RECURSIVE n(k) AS (SELECT 52 UNION ALL SELECT k + 1 FROM n WHERE k < 251) "
            + "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) SELECT k, 3, 1, 'bulk' || k, k % 90 FROM n; "
            + "UPDATE Z_PRIMARYKEY SET Z_MAX = 251 WHERE Z_NAME = 'Person'; COMMIT;",
        // A batch update.
        "UPDATE ZPERSON SET ZAGE = ZAGE + 1, Z_OPT = Z_OPT + 1 WHERE ZAGE < 30;",
    ]

    /// Every file in the folder with its bytes.
    func everything(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    /// The store after each save, as SQLite reads a copy of its files made right then.
    func makeSaves() throws -> [URL] {
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        var oracles: [URL] = []
        let oracleRoot = try Fixtures.temporaryDirectory(self)
        func keep() throws {
            let copy = oracleRoot.appendingPathComponent("after\(oracles.count)")
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: store + suffix) {
                try FileManager.default.copyItem(atPath: store + suffix, toPath: copy.appendingPathComponent("People.sqlite" + suffix).path)
            }
            oracles.append(copy.appendingPathComponent("People.sqlite"))
        }
        try keep()
        for save in Self.saves {
            try SQLiteShell.commitLeavingWAL(store, [save])
            try keep()
        }
        // Copied without its -shm, as a store pulled off a device often is.
        try? FileManager.default.removeItem(atPath: store + "-shm")
        return oracles
    }

    /// Each table's rows as SQLite reads them: `table|Z_PK|Z_ENT|Z_OPT` (join tables whole).
    func rows(_ store: String, generation: String? = nil) throws -> String {
        let query = "SELECT 'P', Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE FROM ZPERSON UNION ALL SELECT 'C', Z_PK, Z_ENT, Z_OPT, ZOWNER, NULL FROM ZCAR "
            + "UNION ALL SELECT 'J', Z_3PEOPLE, Z_4TAGS, NULL, NULL, NULL FROM Z_3TAGS UNION ALL SELECT 'K', Z_ENT, Z_MAX, NULL, Z_NAME, NULL FROM Z_PRIMARYKEY ORDER BY 1, 2, 3"
        guard let generation else { return try SQLiteShell.read(store, query) }
        let run = try CLI.run(["sql", store, query, "--generation", generation, "--format", "csv"])
        XCTAssertEqual(run.status, 0, run.stderr)
        // CSV with a header and NULL written out: the shell's list format (NULL empty) instead.
        return run.stdout.split(separator: "\n").dropFirst().map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).map { $0 == "NULL" ? "" : String($0) }.joined(separator: "|")
        }.joined(separator: "\n")
    }

    /// What changed from one oracle to the next, as `diff` lists it: `change Entity/pN`.
    func expectedChanges(_ a: URL, _ b: URL) throws -> [String] {
        let query = "SELECT k.Z_NAME, r.Z_PK, r.Z_OPT FROM (SELECT Z_PK, Z_ENT, Z_OPT FROM ZPERSON UNION ALL SELECT Z_PK, Z_ENT, Z_OPT FROM ZCAR) r "
            + "JOIN Z_PRIMARYKEY k ON k.Z_ENT = r.Z_ENT"
        func parse(_ text: String) -> [String: String] {
            Dictionary(text.split(separator: "\n").map { line -> (String, String) in
                let f = line.split(separator: "|", omittingEmptySubsequences: false)
                return ("\(f[0])/p\(f[1])", String(f[2]))
            }, uniquingKeysWith: { x, _ in x })
        }
        let (before, after) = (parse(try SQLiteShell.read(a.path, query)), parse(try SQLiteShell.read(b.path, query)))
        var changes: [String] = []
        for (id, version) in after { changes.append(before[id] == nil ? "inserted \(id)" : before[id] != version ? "updated \(id)" : "") }
        for id in before.keys where after[id] == nil { changes.append("deleted \(id)") }
        return changes.filter { !$0.isEmpty }.sorted()
    }

    func testEverySaveInTheWALIsAGenerationReadExactlyInPlace() throws {
        let oracles = try makeSaves()
        let before = try everything(folder)
        XCTAssertEqual(before.keys.sorted(), ["People.sqlite", "People.sqlite-wal"])

        // The listing: the main file, then one commit per save, oldest first.
        let listed = try XCTUnwrap(CLI.json(["generations", store, "--immutable", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["token"] as? String }, ["w0", "w1", "w2", "w3", "w4", "w5"])
        XCTAssertEqual(listed.map { $0["kind"] as? String }, ["main-file", "commit", "commit", "commit", "commit", "commit"])

        for (ordinal, oracle) in oracles.enumerated() {
            let token = "w\(ordinal)"
            // Every row of the tables a save touches, exactly as SQLite reads the copy.
            XCTAssertEqual(try rows(store, generation: token), try rows(oracle.path), "\(token) differs from SQLite's reading")
            // A fetch answers what the copy holds.
            let fetched = try CLI.run(["fetch", store, "Person", "--keys", "name,age", "--sort", "name", "--format", "csv", "--generation", token])
            let copied = try CLI.run(["fetch", oracle.path, "Person", "--keys", "name,age", "--sort", "name", "--format", "csv"])
            XCTAssertEqual(fetched.stdout, copied.stdout, token)
            XCTAssertEqual(fetched.status, 0, fetched.stderr)
            guard ordinal > 0 else { continue }
            // diff between consecutive tokens names exactly the objects the save changed.
            let expected = try expectedChanges(oracles[ordinal - 1], oracle)
            let diff = try CLI.run([store, "--immutable", "-c", "diff w\(ordinal - 1) \(token) --format csv"])
            XCTAssertEqual(diff.status, 0, diff.stderr)
            let named = diff.stdout.split(separator: "\n").dropFirst().map { line -> String in
                let f = line.split(separator: ",")
                return "\(f[0]) \(f[1].split(separator: "/").suffix(2).joined(separator: "/"))"
            }.sorted()
            XCTAssertEqual(named, expected, token)
            // The listing's counts agree with the same changes.
            let entry = listed[ordinal]
            let total = ["inserted", "updated", "deleted"].reduce(0) { sum, key in
                sum + ((entry[key] as? [String: Int])?.values.reduce(0, +) ?? 0)
            }
            XCTAssertEqual(total, expected.count, "\(token)'s counts: \(entry)")
        }
        XCTAssertEqual(listed[4]["inserted"] as? [String: Int], ["Person": 200])
        XCTAssertEqual(listed[3]["deleted"] as? [String: Int], ["Person": 1])

        // A context pinned to a past token answers that generation; unpinned, the newest.
        let session = try CLI.run([store, "--immutable", "-c", "context new a", "-c", "pin w2 --context a", "-c", "count Person --context a",
                                   "-c", "get Person/p2 --context a --format line", "-c", "unpin --context a", "-c", "count Person --context a",
                                   "-c", "pin w9 --context a"])
        XCTAssertEqual(session.stdout.split(separator: "\n").first, "51")
        XCTAssertTrue(session.stdout.contains("renamed"), session.stdout)
        XCTAssertEqual(session.stdout.split(separator: "\n").last, "250")
        XCTAssertTrue(session.stderr.contains("no generation 'w9' in the store's files (they hold w0…w5)"), session.stderr)

        // The MCP server: the generations tool, and a read tool's generation argument.
        let server = try MCPPipe([store, "--immutable"])
        try server.handshake()
        try server.write(try MCPHostileTests.call(1, "count", ["entity": "Person", "generation": "w1"])
                         + MCPHostileTests.call(2, "count", ["entity": "Person"])
                         + MCPHostileTests.call(3, "generations", [:])
                         + MCPHostileTests.call(4, "count", ["entity": "Person", "generation": "w9"]))
        XCTAssertEqual(try server.toolText(1).text, "{\"count\": 51}")
        XCTAssertEqual(try server.toolText(2).text, "{\"count\": 250}")
        XCTAssertFalse(try server.toolText(3).isError)
        let unknown = try server.toolText(4)
        XCTAssertTrue(unknown.isError && unknown.text.contains("no generation 'w9'"), unknown.text)
        XCTAssertEqual(server.finish().status, 0)

        // A field-level comparison of two past generations, one-shot.
        let fields = try CLI.run(["diff", store, "--from", "w1", "--to", "w2", "--format", "csv"])
        XCTAssertEqual(fields.status, 1)
        XCTAssertTrue(fields.stdout.contains("Person,updated,\(uri("Person/p2")),name,dave1,renamed"), fields.stdout)

        // Nothing on disk changed, and no file was created.
        XCTAssertEqual(try everything(folder), before, "reading past generations changed or created a file")
        // Past generations cannot be written.
        let write = try CLI.run(["batch-update", store, "Person", "--set", "age=1", "--generation", "w1"])
        XCTAssertEqual(write.status, 1)
        XCTAssertEqual(try everything(folder), before)
    }

    /// The same store copied without its -wal: the -shm proves saves are missing, and reading
    /// it as evidence says so and creates nothing.
    func testAStoreCopiedWithoutItsWALWarnsAndCreatesNothing() throws {
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        try SQLiteShell.commitLeavingWAL(store, Array(Self.saves.prefix(2)))
        let copy = try Fixtures.temporaryDirectory(self)
        for suffix in ["", "-shm"] {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: copy.appendingPathComponent("People.sqlite" + suffix).path)
        }
        let copied = copy.appendingPathComponent("People.sqlite").path
        let before = try everything(copy)
        let run = try CLI.run(["count", copied, "Person", "--immutable"])
        XCTAssertEqual(run.stdout, "50\n", "the main file alone: before both saves")
        XCTAssertTrue(run.stderr.contains("has no -wal, but its -shm says the -wal held 3 frames: the newest saves are missing"), run.stderr)
        XCTAssertEqual(try everything(copy), before, "reading created or changed a file")
    }

    /// A main file whose history counter is past its newest transaction (torn: copied while a
    /// checkpoint was copying a save in), found with no -wal and no -shm: the counter is the
    /// proof, and reading it warns; the same file with the counter at its newest row is a note.
    func testAHistoryCounterPastTheRowsProvesSavesMissing() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.copy("RhetTbull_PhotoScript/Photos.sqlite", into: folder, sidecars: ["-wal"]).path
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        let newest = try SQLiteShell.run(store, "SELECT max(Z_PK) FROM ATRANSACTION").trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try SQLiteShell.run(store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002").trimmingCharacters(in: .whitespacesAndNewlines), newest)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        let clean = try CLI.run(["info", store, "--immutable"])
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertTrue(clean.stderr.contains("is a WAL store with no -wal beside it"), clean.stderr)
        XCTAssertFalse(clean.stderr.contains("warning:"), clean.stderr)

        try SQLiteShell.run(store, "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 3 WHERE Z_ENT = 16002; PRAGMA wal_checkpoint(TRUNCATE)")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let torn = try CLI.run(["count", store, "Asset", "--immutable"])
        XCTAssertEqual(torn.status, 0, torn.stderr)
        let issued = (Int(newest) ?? 0) + 3
        XCTAssertTrue(torn.stderr.contains("warning: \(store) has no -wal, but its history counter says transaction \(issued) was saved, and the newest it holds is \(newest)"), torn.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), files, "reading created a file")
    }

    /// A write says, before it goes in, that it will fold the -wal's saves away.
    func testAWriteSaysItFoldsTheSavesTheWALHolds() throws {
        _ = try makeSaves()
        let run = try CLI.run([store, "-c", "update Person/p1 name=Ann", "-c", "save", "-c", "update Person/p1 name=Bo", "-c", "save"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr.components(separatedBy: "the -wal holds 5 earlier saves (w1…w5, see 'generations'); this write checkpoints them").count, 2,
                       "said once, before the first save: \(run.stderr)")
        // Said where it is true only: the session's close checkpointed them.
        let again = try CLI.run([store, "-c", "update Person/p1 name=Cy", "-c", "save"])
        XCTAssertFalse(again.stderr.contains("earlier save"), again.stderr)
    }

    /// A checkpoint that copied the -wal into the main file without restarting it: every commit
    /// still reads, but one whose pages later saves overwrote in the main file is partial,
    /// said so where it is listed and where it is read, and what the copied commits changed
    /// is unknown, never answered as "nothing".
    func testACheckpointedCommitIsMarkedPartialAndNeverAnsweredAsExact() throws {
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        try SQLiteShell.commitLeavingWAL(store, ["UPDATE ZPERSON SET ZAGE = 1, Z_OPT = Z_OPT + 1 WHERE Z_PK = 1",
                                                 "UPDATE ZCAR SET ZYEAR = 1900, Z_OPT = Z_OPT + 1 WHERE Z_PK = 1",
                                                 "PRAGMA wal_checkpoint(PASSIVE)"])
        let listed = try XCTUnwrap(CLI.json(["generations", store, "--immutable", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["token"] as? String }, ["w0", "w1", "w2"])
        XCTAssertTrue((listed[0]["note"] as? String)?.contains("holds the state of w2") == true, "\(listed[0])")
        XCTAssertTrue((listed[1]["note"] as? String)?.hasPrefix("partial: ") == true, "\(listed[1])")
        XCTAssertTrue((listed[2]["note"] as? String)?.hasPrefix("reads exactly; what it changed cannot be told") == true, "\(listed[2])")
        for entry in listed.dropFirst() { XCTAssertTrue(entry["updated"] is NSNull, "\(entry)") }
        // The car's year was changed by w2, and the main file now holds it: w1 reads it, and warns.
        let read = try CLI.run(["count", store, "Car", "--where", "year == 1900", "--generation", "w1"])
        XCTAssertEqual(read.stdout, "1\n")
        XCTAssertTrue(read.stderr.contains("warning: generation w1 is partial"), read.stderr)
    }

    /// A snapshot keeps the -wal's saves as they were, in its past/ folder: after a write
    /// folds them away in the store, they read there exactly as before.
    func testASnapshotKeepsTheSavesAWriteFoldsAway() throws {
        let oracles = try makeSaves()
        let snapshot = folder.appendingPathComponent("before").path
        XCTAssertEqual(try CLI.run(["snapshot", store, "--to", snapshot]).status, 0)
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: snapshot + "/manifest.json"))) as? [String: Any])
        XCTAssertEqual(manifest["pastGenerations"] as? Int, 5)
        XCTAssertEqual(try CLI.run([store, "-c", "update Person/p1 name=Ann", "-c", "save"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-wal"), "the session's close checkpointed the store")
        let past = snapshot + "/past/People.sqlite"
        for (ordinal, oracle) in oracles.enumerated() {
            XCTAssertEqual(try rows(past, generation: "w\(ordinal)"), try rows(oracle.path), "w\(ordinal) kept in the snapshot")
        }
    }

    func testAnUnknownTokenNamesTheTokensThereAre() throws {
        _ = try makeSaves()
        let run = try CLI.run(["count", store, "Person", "--generation", "w77"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stderr, "cdinspect: error: no generation 'w77' in the store's files (they hold w0…w5)\n")
    }

    /// A WAL restarted after a checkpoint keeps the earlier WAL's frames past its new end:
    /// listed as such, never as commits of the current one.
    func testARestartedWALShowsOnlyItsOwnCommits() throws {
        try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)")
        // One process: three saves, a checkpoint that restarts the WAL, one more save.
        try SQLiteShell.commitLeavingWAL(store, [Self.saves[0], Self.saves[1], Self.saves[3],
                                                 "PRAGMA wal_checkpoint(RESTART)", Self.saves[4]])
        let listed = try XCTUnwrap(CLI.json(["generations", store, "--immutable", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["kind"] as? String }, ["main-file", "commit", "earlier-wal"])
        XCTAssertTrue((listed[2]["note"] as? String)?.contains("earlier WAL") == true, "\(listed[2])")
        XCTAssertEqual(try CLI.run(["count", store, "Person", "--generation", "w1"]).stdout, try CLI.run(["count", store, "Person"]).stdout)
        let earlier = try CLI.run(["count", store, "Person", "--generation", "earlier"])
        XCTAssertEqual(earlier.status, 1)
        XCTAssertTrue(earlier.stderr.contains("cannot be read as a generation"), earlier.stderr)
    }

    /// A damaged frame in the middle of the -wal: the commits before it are listed, and why
    /// the rest cannot be read.
    func testADamagedFrameListsTheCommitsBeforeIt() throws {
        _ = try makeSaves()
        // Frame 3 (the second save's; the first wrote two pages) no longer matches its checksum.
        let wal = try FileHandle(forUpdating: URL(fileURLWithPath: store + "-wal"))
        let pageSize = 4096
        try wal.seek(toOffset: UInt64(32 + 2 * (pageSize + 24) + 24 + 100))
        wal.write(Data([0xFF, 0xEE, 0xDD]))
        try wal.close()
        let listed = try XCTUnwrap(CLI.json(["generations", store, "--immutable", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["token"] as? String }, ["w0", "w1", "damaged"])
        XCTAssertTrue((listed.last?["note"] as? String)?.contains("does not verify from frame 3") == true, "\(listed.last ?? [:])")
    }
}

/// The same comparison on every genuine store with a `-wal` in the fixtures: each commit read
/// in place equals SQLite's reading of a copy cut after that commit's last frame, and reading
/// with `--immutable` creates and changes nothing.
final class GenuinePastGenerationTests: XCTestCase {
    static let stores = ["RhetTbull_PhotoScript/Photos.sqlite", "tkanarsky_osxphotos/Photos-14.6.0.sqlite",
                         "wibosco_CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite"]

    /// Frame numbers of the commit frames, read with a parser of the test's own (headers only).
    func commitFrames(_ wal: Data) -> (pageSize: Int, commits: [Int]) {
        func word(_ offset: Int) -> Int { wal[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        let pageSize = word(8)
        let salts = wal[16..<24]
        var commits: [Int] = []
        var frame = 0
        while 32 + (frame + 1) * (pageSize + 24) <= wal.count {
            let at = 32 + frame * (pageSize + 24)
            guard wal[(at + 8)..<(at + 16)] == salts else { break }
            if word(at + 4) != 0 { commits.append(frame + 1) }
            frame += 1
        }
        return (pageSize, commits)
    }

    func tableCounts(_ tables: [String]) -> String {
        tables.map { "SELECT '\($0)', count(*) FROM \"\($0)\"" }.joined(separator: " UNION ALL ") + " ORDER BY 1"
    }

    func testEveryCommitOfEveryGenuineWALReadsAsSQLiteReadsItsCopy() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        for relative in Self.stores {
            let copy = folder.appendingPathComponent(relative.replacingOccurrences(of: "/", with: "_"))
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            let store = try Fixtures.copy(relative, into: copy)
            let wal = try Data(contentsOf: URL(fileURLWithPath: store.path + "-wal"))
            let (pageSize, commits) = commitFrames(wal)
            let tables = try SQLiteShell.run("file:\(store.path)?immutable=1", "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'")
                .split(separator: "\n").map(String.init)
            let query = tableCounts(tables)
            let listed = try XCTUnwrap(CLI.json(["generations", store.path, "--immutable", "--format", "json"]) as? [[String: Any]])
            XCTAssertEqual(listed.filter { $0["kind"] as? String == "commit" }.map { $0["lastFrame"] as? Int }, commits, relative)
            // Every object each generation holds, as SQLite reads the cut copy: what `recover` must find.
            let entityTables = try SQLiteShell.run("file:\(store.path)?immutable=1", "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%Z_ENT%' AND sql LIKE '%Z_OPT%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'")
                .split(separator: "\n").map(String.init)
            let objectsQuery = entityTables.map { "SELECT k.Z_NAME, t.Z_PK FROM \"\($0)\" t JOIN Z_PRIMARYKEY k ON k.Z_ENT = t.Z_ENT" }.joined(separator: " UNION ALL ")
            var everHeld: Set<String> = []
            var newestHeld: Set<String> = []
            let cut = folder.appendingPathComponent("cut")
            for (index, last) in ([0] + commits).enumerated() {
                try? FileManager.default.removeItem(at: cut)
                try FileManager.default.createDirectory(at: cut, withIntermediateDirectories: true)
                let cutStore = cut.appendingPathComponent("store.sqlite").path
                try FileManager.default.copyItem(atPath: store.path, toPath: cutStore)
                if last > 0 { try wal.prefix(32 + last * (pageSize + 24)).write(to: URL(fileURLWithPath: cutStore + "-wal")) }
                let expected = try SQLiteShell.read(cutStore, query)
                let run = try CLI.run(["sql", store.path, query, "--generation", "w\(index)", "--format", "csv"])
                XCTAssertEqual(run.status, 0, "\(relative) w\(index): \(run.stderr)")
                let got = run.stdout.split(separator: "\n").dropFirst().map { $0.replacingOccurrences(of: ",", with: "|") }.joined(separator: "\n")
                XCTAssertEqual(got, expected, "\(relative) w\(index)")
                let held = Set(try SQLiteShell.read(cutStore, objectsQuery).split(separator: "\n").map { $0.replacingOccurrences(of: "|", with: "/p") })
                if index == commits.count { newestHeld = held } else { everHeld.formUnion(held) }
            }
            // recover lists every object an earlier generation held and the newest does not.
            let recovered = try XCTUnwrap(CLI.json(["recover", store.path, "--immutable", "--format", "json"]) as? [[String: Any]])
            func ids(_ records: [[String: Any]]) -> Set<String> {
                Set(records.compactMap { ($0["objectID"] as? String)?.split(separator: "/").suffix(2).joined(separator: "/") })
            }
            let deleted = recovered.filter { $0["state"] as? String == "deleted" }
            let fromGenerations = deleted.filter { ($0["source"] as? [String: Any])?["kind"] as? String == "earlier-generation" }
            XCTAssertEqual(ids(fromGenerations), everHeld.subtracting(newestHeld), "\(relative): recover from the earlier generations")
            // Carved records add objects deleted before the -wal began; none is a live object.
            XCTAssertTrue(ids(deleted).isDisjoint(with: newestHeld), "\(relative): a live object listed as deleted: \(ids(deleted).intersection(newestHeld))")
        }
    }

    /// The listing counts each commit from the pages it wrote, on several threads where there
    /// are many commits (Photos.sqlite has 41): every commit's counts are what `diff` between
    /// the tokens either side finds, object by object, read by SQLite.
    func testTheListingsCountsAreWhatDiffFindsForEveryGenuineCommit() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.copy("RhetTbull_PhotoScript/Photos.sqlite", into: folder).path
        let listed = try XCTUnwrap(CLI.json(["generations", store, "--immutable", "--format", "json"]) as? [[String: Any]])
        let commits = listed.filter { $0["kind"] as? String == "commit" }
        XCTAssertGreaterThanOrEqual(commits.count, CommitCountWorkers.fewestForThreads)
        var arguments = [store, "--immutable"]
        for entry in commits {
            let token = try XCTUnwrap(entry["token"] as? String)
            arguments += ["-c", "diff w\(Int(token.dropFirst())! - 1) \(token) --format csv"]
        }
        let run = try CLI.run(arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        // One CSV per diff, each opening with its header.
        let header = "change,objectID,before,after\n"
        let diffs = run.stdout.components(separatedBy: header).dropFirst()
        XCTAssertEqual(diffs.count, commits.count)
        var changed = 0
        for (entry, diff) in zip(commits, diffs) {
            var found: [String: Set<String>] = [:]
            for line in diff.split(separator: "\n") {
                let fields = line.split(separator: ",", maxSplits: 2)
                guard fields.count >= 2 else { continue }
                found[String(fields[0]), default: []].insert(String(fields[1]))
            }
            for kind in ["inserted", "updated", "deleted"] {
                let counted = (entry[kind] as? [String: Int])?.values.reduce(0, +) ?? 0
                XCTAssertEqual(counted, found[kind]?.count ?? 0, "\(entry["token"] ?? "") \(kind): \(entry)")
                changed += counted
            }
        }
        XCTAssertGreaterThan(changed, 100, "the commits change objects: a listing of zeros would pass otherwise")
    }

    func testImmutableReadsOfGenuineWALsCreateAndChangeNothing() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        for relative in Self.stores {
            let copy = folder.appendingPathComponent(relative.replacingOccurrences(of: "/", with: "_"))
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            let store = try Fixtures.copy(relative, into: copy).path
            func everything() throws -> [String: Data] {
                var files: [String: Data] = [:]
                for name in try FileManager.default.contentsOfDirectory(atPath: copy.path) {
                    files[name] = try Data(contentsOf: copy.appendingPathComponent(name))
                }
                return files
            }
            let before = try everything()
            let entities = try XCTUnwrap(CLI.json(["entities", store, "--immutable", "--format", "json"]) as? [[String: Any]])
            for arguments in [["info", store], ["generations", store], ["doctor", store], ["history", store], ["diff", store, "--from", "w0"], ["recover", store]] {
                let run = try CLI.run(arguments + ["--immutable"])
                XCTAssertTrue([0, 1].contains(run.status), "\(arguments): \(run.stderr)")
                XCTAssertFalse(run.stderr.contains("error:") && !run.stderr.contains("no persistent history"), "\(arguments): \(run.stderr)")
            }
            // The counts equal SQLite's own reading of a copy (main file and -wal).
            let oracle = folder.appendingPathComponent("oracle")
            try? FileManager.default.removeItem(at: oracle)
            try FileManager.default.createDirectory(at: oracle, withIntermediateDirectories: true)
            let oracleStore = try Fixtures.copy(relative, into: oracle, sidecars: ["-wal"]).path
            for entity in entities.prefix(12) {
                guard let name = entity["name"] as? String, let count = entity["count"] as? Int else { continue }
                let counted = try CLI.run(["count", store, name, "--immutable"])
                XCTAssertEqual(counted.stdout, "\(count)\n", "\(relative) \(name)")
                XCTAssertEqual(try CLI.run(["count", oracleStore, name]).stdout, "\(count)\n", "\(relative) \(name) against SQLite's copy")
                XCTAssertEqual(try CLI.run(["fetch", store, name, "--limit", "3", "--immutable", "--format", "csv"]).status, 0)
            }
            XCTAssertEqual(try everything(), before, "\(relative): an immutable read created or changed a file")

            // The same store copied without its -wal: where its -shm proves saves are missing,
            // reading it as evidence warns; either way it creates and changes nothing.
            let bare = folder.appendingPathComponent("bare")
            try? FileManager.default.removeItem(at: bare)
            try FileManager.default.createDirectory(at: bare, withIntermediateDirectories: true)
            let bareStore = try Fixtures.copy(relative, into: bare, sidecars: ["-shm"]).path
            let bareFiles = try FileManager.default.contentsOfDirectory(atPath: bare.path).sorted()
            let counted = try CLI.run(["info", bareStore, "--immutable"])
            XCTAssertEqual(counted.status, 0, counted.stderr)
            // With a -shm naming frames, a warning; without one, nothing proves saves missing: a note.
            let proof = bareFiles.contains { $0.hasSuffix("-shm") }
            XCTAssertEqual(counted.stderr.contains("warning: \(bareStore) has no -wal, but its -shm says"), proof, "\(relative): \(counted.stderr)")
            XCTAssertEqual(counted.stderr.contains("cdinspect: \(bareStore) is a WAL store with no -wal beside it"), !proof, "\(relative): \(counted.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: bare.path).sorted(), bareFiles)
        }
    }
}

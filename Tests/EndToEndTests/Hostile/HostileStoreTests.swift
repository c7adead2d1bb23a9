import Foundation
import TestSupport
import XCTest

/// The hostile-input suite's stores: wrong-type mutants of the example store and of a
/// genuine Apple store, random byte and page damage, truncations, and damaged `-wal` headers
/// and frames. Every store goes through every reading command, as a subcommand and in a
/// session, then through a session that writes; the reads must leave its bytes alone.
final class HostileStoreTests: XCTestCase {
    /// A store to attack, and what to ask of it.
    struct Target: Sendable {
        let name: String
        let path: String
        let entity: String
        let key: String
        /// Example-store mutants also get a writing session (genuine stores are read only).
        var writes = false
    }

    static let seed: UInt64 = 0x1605_2026

    static func readCommands(_ t: Target) -> [[String]] {
        [["info"], ["entities"], ["schema"], ["schema", t.entity], ["count", t.entity],
         ["count", t.entity, "--where", "\(t.key) != nil OR \(t.key) == nil"],
         ["fetch", t.entity, "--limit", "5"], ["fetch", t.entity, "--format", "json", "--limit", "20"],
         ["fetch", t.entity, "--format", "csv", "--sort", "\(t.key):desc", "--limit", "20"],
         ["fetch", t.entity, "--format", "line", "--as", "dicts", "--limit", "5"],
         ["explain", t.entity, "--where", "\(t.key) > 3"]]
    }

    static let writeSession = ["batch-update Person --set 'age=age+1' --result count", "insert Tag name=hostile",
                               "update Person/p1 name=renamed", "save", "batch-delete Tag --where 'name == \"hostile\"'",
                               "count Person"]

    /// Every command as a subcommand, then all of them in one session script, then (for
    /// the example store's mutants) the writing session.
    static func attack(_ t: Target, _ findings: HostileFindings) {
        findings.input()
        let before = storeBytes(t.path)
        let commands = readCommands(t)
        for command in commands {
            findings.run([command[0], t.path] + command.dropFirst(), "\(t.name): \(command.joined(separator: " "))")
        }
        let script = commands.map(sessionLine).joined(separator: "\n") + "\n"
        findings.run([t.path, "--keep-going"], stdin: script, commands: commands.count, "\(t.name): session")
        if storeBytes(t.path) != before { findings.report("\(t.name): reading changed the store's bytes") }
        if t.writes {
            findings.run([t.path, "--keep-going"] + writeSession.flatMap { ["-c", $0] }, commands: writeSession.count,
                         "\(t.name): writing session")
        }
    }

    var folder: URL!
    var pristine: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
        pristine = try Fixtures.exampleStore(in: folder, people: 50)
    }

    /// A fresh copy of `source` (and its `-wal`) named `name` in its own folder.
    func copy(_ source: URL, _ name: String) throws -> String {
        let dir = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let target = dir.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: target)
        if FileManager.default.fileExists(atPath: source.path + "-wal") {
            try FileManager.default.copyItem(atPath: source.path + "-wal", toPath: target.path + "-wal")
        }
        return target.path
    }

    /// `UPDATE table SET column = value` for every column of the Core Data tables and each
    /// value of the wrong kind, and one wrong kind per entity column; the mutants SQLite
    /// itself refuses (an INTEGER PRIMARY KEY holds only integers) are left out.
    static let wrongValues = ["'text'", "x'00ff10'", "2.5", "-7", "NULL", "''", "9223372036854775807"]

    func wrongTypeMutants(of source: URL, prefix: String, entity: String, key: String, writes: Bool,
                          entityTables: Bool, values: [String] = wrongValues) throws -> [Target] {
        var targets: [Target] = []
        // Read from a copy: even a read-only open of a WAL store makes a -wal and -shm beside it,
        // and a fixture is not the test's to change.
        let source = URL(fileURLWithPath: try copy(source, "source-\(prefix)"))
        let tables = try SQLiteShell.read(source.path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .split(separator: "\n").map(String.init)
        var kind = 0
        for table in tables {
            let metadataTable = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains(table)
            guard metadataTable || entityTables else { continue }
            let columns = try SQLiteShell.read(source.path, "SELECT name FROM pragma_table_info('\(table)')").split(separator: "\n")
            for column in columns {
                let chosen = metadataTable ? values : [values[kind % values.count]]
                kind += 1
                for value in chosen {
                    let name = "\(prefix)-\(table).\(column)=\(value)"
                    let path = try copy(source, "m\(targets.count)-\(prefix)")
                    let rows = metadataTable ? "" : " WHERE rowid IN (SELECT rowid FROM \"\(table)\" ORDER BY rowid LIMIT 3)"
                    do {
                        try SQLiteShell.run(path, "UPDATE \"\(table)\" SET \"\(column)\" = \(value)\(rows)")
                    } catch {
                        try FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
                        continue
                    }
                    targets.append(Target(name: name, path: path, entity: entity, key: key, writes: writes))
                }
            }
        }
        return targets
    }

    func testWrongTypeMutantsOfTheExampleStore() throws {
        let targets = try wrongTypeMutants(of: pristine, prefix: "example", entity: "Person", key: "age", writes: true, entityTables: true)
        XCTAssertGreaterThan(targets.count, 60)
        Self.attackAll(targets, "wrong-type mutants of the example store")
    }

    func testWrongTypeMutantsOfAGenuineStore() throws {
        let notes = try SharedFiles.require("fixtures/stores/RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite")
        let targets = try wrongTypeMutants(of: notes, prefix: "notes", entity: "ICNote", key: "creationDate", writes: false, entityTables: false,
                                           values: ["'text'", "x'00ff10'", "2.5", "NULL"])
        XCTAssertGreaterThan(targets.count, 20)
        Self.attackAll(targets, "wrong-type mutants of a genuine store")
    }

    /// Attacks every target, two at a time, says how many inputs and commands that was,
    /// and fails with whatever was found.
    static func attackAll(_ targets: [Target], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let findings = HostileFindings()
        forEachConcurrently(targets) { attack($0, findings) }
        print("hostile suite, \(what): \(findings.inputsTried) stores, \(findings.commandsRun) commands")
        findings.assertNone(file: file, line: line)
    }

    /// Random bytes, whole pages and truncations, on the example store and a genuine one.
    func testRandomDamageAndTruncation() throws {
        var random = SeededGenerator(seed: Self.seed)
        var sources: [(URL, String, String, Bool)] = [(pristine, "Person", "age", true)]
        if let notes = try? SharedFiles.require("fixtures/stores/RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite") {
            sources.append((notes, "ICNote", "creationDate", false))
        } else {
            _ = try SharedFiles.require("fixtures/stores") // fails under CDINSPECT_REQUIRE_SHARED=1, else skips the genuine half
        }
        var targets: [Target] = []
        for (source, entity, key, writes) in sources {
            let bytes = try Data(contentsOf: source)
            let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
            let pages = bytes.count / pageSize
            let prefix = source.deletingPathExtension().lastPathComponent
            func add(_ name: String, _ damaged: Data) throws {
                let path = try copy(source, "d\(targets.count)")
                try damaged.write(to: URL(fileURLWithPath: path))
                targets.append(Target(name: "\(prefix) \(name)", path: path, entity: entity, key: key, writes: writes))
            }
            for i in 0..<12 {
                var damaged = bytes
                let count = Int.random(in: 1...16, using: &random)
                let offsets = (0..<count).map { _ in i < 2 ? Int.random(in: 0..<100, using: &random)
                                                             : Int.random(in: 100..<bytes.count, using: &random) }
                for offset in offsets { damaged[offset] = UInt8.random(in: 0...255, using: &random) }
                try add("bytes \(offsets.prefix(4))", damaged)
            }
            for _ in 0..<8 {
                var damaged = bytes
                let page = Int.random(in: 1..<pages, using: &random)
                let zero = Bool.random(using: &random)
                for offset in page * pageSize..<(page + 1) * pageSize { damaged[offset] = zero ? 0 : UInt8.random(in: 0...255, using: &random) }
                try add("page \(page + 1) \(zero ? "zeroed" : "random")", damaged)
            }
            for length in [0, 50, 100, pageSize, pageSize + 1000, (pages / 2) * pageSize, bytes.count - 1] {
                try add("truncated to \(length)", bytes.prefix(length))
            }
        }
        Self.attackAll(targets, "random damage and truncation (seed \(Self.seed))")
    }

    /// `-wal` files damaged in the header, in a frame's header and in a frame's page, cut
    /// mid-frame and filled with random bytes: the example store with three commits left in
    /// its `-wal`, and a genuine store that ships with one.
    func testDamagedWAL() throws {
        var random = SeededGenerator(seed: Self.seed + 1)
        let withWAL = try copy(pristine, "with-wal")
        try SQLiteShell.commitLeavingWAL(withWAL, ["UPDATE ZPERSON SET ZNAME = 'walA' WHERE Z_PK = 1",
                                                   "INSERT INTO ZTAG(Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (100, 4, 1, 'walTag')",
                                                   "UPDATE ZPERSON SET ZAGE = 99 WHERE Z_PK = 2"])
        var sources: [(URL, String, String, Bool)] = [(URL(fileURLWithPath: withWAL), "Person", "age", true)]
        let genuine = "fixtures/stores/wibosco_CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite"
        if let store = try? SharedFiles.require(genuine) {
            sources.append((store, "Color", "hex", false))
        } else {
            _ = try SharedFiles.require(genuine)
        }
        var targets: [Target] = []
        for (source, entity, key, writes) in sources {
            let wal = try Data(contentsOf: URL(fileURLWithPath: source.path + "-wal"))
            let pageSize = Int(wal[8]) << 24 | Int(wal[9]) << 16 | Int(wal[10]) << 8 | Int(wal[11])
            let frameSize = pageSize + 24
            let frames = (wal.count - 32) / frameSize
            XCTAssertGreaterThan(frames, 1, "\(source.lastPathComponent) has frames in its -wal")
            let middle = 32 + (frames / 2) * frameSize
            var cases: [(String, Data)] = []
            func flipped(_ offsets: [Int]) -> Data {
                var d = wal
                for o in offsets { d[o] ^= 0xA5 }
                return d
            }
            cases.append(("magic", flipped([0])))
            cases.append(("page size", flipped([10])))
            cases.append(("salt", flipped([17])))
            cases.append(("header checksum", flipped([30])))
            cases.append(("a frame's page number", flipped([middle + 2])))
            cases.append(("a frame's salt", flipped([middle + 9])))
            cases.append(("a frame's page", flipped([middle + 24 + pageSize / 2])))
            cases.append(("the first frame's page", flipped([32 + 24 + 7])))
            cases.append(("cut mid-frame", wal.prefix(middle + frameSize / 2)))
            cases.append(("cut inside the header", wal.prefix(20)))
            cases.append(("random bytes", flipped((0..<64).map { _ in Int.random(in: 0..<wal.count, using: &random) })))
            for (what, damaged) in cases {
                let path = try copy(source, "w\(targets.count)")
                try damaged.write(to: URL(fileURLWithPath: path + "-wal"))
                targets.append(Target(name: "\(source.lastPathComponent) -wal \(what)", path: path, entity: entity,
                                      key: key, writes: writes))
            }
        }
        Self.attackAll(targets, "damaged -wal files")
    }
}

import Foundation
import XCTest

/// Reads go through SQLite's memory map, windowed by `WindowedMappingVFS`: a scan of a store
/// far larger than the windows keeps resident memory flat, and the map follows the file
/// while another process shrinks and grows it between commands.
final class MappedReadTests: ExampleStoreTestCase {
    /// People with a 1 KiB photo each, which Core Data keeps in the row: 150,000 of them
    /// make a store of about 180 MB.
    func addHeavyPeople(_ count: Int, from first: Int = 1000) throws {
        try SQLiteShell.run(store, """
            INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE, ZPHOTO)
              SELECT value + \(first), 3, 1, 'heavy' || value, 30, randomblob(1024) FROM generate_series(1, \(count));
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(first + count) WHERE Z_NAME = 'Person';
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
    }

    var storeSize: Int { (try? FileManager.default.attributesOfItem(atPath: store)[.size] as? Int) ?? 0 }

    /// The command's output and its peak resident memory in bytes, as the kernel reports it
    /// when the process ends (`wait4`).
    func peakMemory(_ arguments: [String]) throws -> (stdout: String, bytes: Int) {
        let output = folder.appendingPathComponent("stdout").path, errors = folder.appendingPathComponent("stderr").path
        try? FileManager.default.removeItem(atPath: output)
        try? FileManager.default.removeItem(atPath: errors)
        let child = try ChildProcess([CLI.binary.path] + arguments, environment: ProcessInfo.processInfo.environment,
                                     files: [1: output, 2: errors])
        let ended = child.wait()
        XCTAssertEqual(ended.status, 0, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
        return (try String(contentsOfFile: output, encoding: .utf8), ended.peakMemory)
    }

    func testScanningALargeStoreKeepsMemoryFlat() throws {
        let small = try peakMemory(["count", store, "Person"])
        XCTAssertEqual(small.stdout, "50\n")
        try addHeavyPeople(150_000)
        XCTAssertGreaterThan(storeSize, 150_000_000)

        // Every page of the table is read through the map; without the windows given back,
        // all of them would stay resident (the store's 180 MB).
        let count = try peakMemory(["count", store, "Person"])
        XCTAssertEqual(count.stdout, "150050\n")
        XCTAssertLessThan(count.bytes - small.bytes, 40_000_000, "count of a \(storeSize)-byte store")

        let fetch = try peakMemory(["fetch", store, "Person", "--keys", "name", "--format", "csv"])
        let lines = fetch.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 150_051)
        XCTAssertEqual(lines.last.map(String.init), uri("Person/p151000") + ",heavy150000")
        XCTAssertLessThan(fetch.bytes - small.bytes, 40_000_000, "fetch of a \(storeSize)-byte store")
    }

    /// Between two commands of one session, another process deletes most rows, vacuums and
    /// truncates the file to a fraction of the map, then grows it again: each answer is
    /// the store's, and no page of the old map is touched (which would kill the process).
    func testTheMapFollowsTheFileAsAnotherProcessShrinksAndGrowsIt() throws {
        try addHeavyPeople(40_000)
        let large = storeSize
        let session = try SessionDriver(store: store)
        XCTAssertEqual(session.run("count Person").out, "40050\n")
        XCTAssertEqual(session.run("fetch Person --where 'name == \"heavy39999\"' --keys age --as dicts --format csv").out, "age\n30\n")

        try SQLiteShell.run(store, """
            DELETE FROM ZPERSON WHERE ZNAME LIKE 'heavy%';
            VACUUM;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        XCTAssertLessThan(storeSize * 10, large)
        XCTAssertEqual(session.run("count Person").out, "50\n")
        XCTAssertEqual(session.run("fetch Person --where 'name == \"heavy39999\"' --as count").out, "0\n")

        try addHeavyPeople(30_000, from: 100_000)
        XCTAssertEqual(session.run("count Person").out, "30050\n")
        XCTAssertEqual(session.run("fetch Person --where 'name == \"heavy30000\"' --keys age --as dicts --format csv").out, "age\n30\n")
        XCTAssertEqual(try session.finish(), 0)
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok")
    }
}

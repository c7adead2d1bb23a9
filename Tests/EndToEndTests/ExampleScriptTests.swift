import Foundation
import XCTest

/// The scripts in Examples/ run as their comments say, through the built binary on a fresh
/// copy of the example store, and each step prints what the seed it comes from expects.
final class ExampleScriptTests: XCTestCase {
    func testSeed001QueryGenerationScript() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 50).path
        let script = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Examples/seed-001-query-generations.cdi"), encoding: .utf8)
        let result = try CLI.run([store, "--format", "csv"], stdin: script)
        XCTAssertEqual(result.status, 0, result.stderr)
        let u = { (short: String) in Fixtures.uri(short) }
        let steps = result.stdout.components(separatedBy: "\n")

        // A is unpinned, then pinned to g1, and reads dave0 and his car before B's changes.
        XCTAssertEqual(Array(steps[0...3]), ["unpinned", "g1", "objectID,name,age", "\(u("Person/p1")),dave0,43"])
        XCTAssertTrue(steps.contains("cars     = \(u("Car/p1"))"), result.stdout)
        // B finds the car, deletes it and saves, then renames all fifty people.
        XCTAssertTrue(result.stdout.contains("""
            objectID,name
            \(u("Car/p1")),Mustang
            saved into the store: 0 inserted, 1 updated, 1 deleted
            50
            0
            objectID,name
            \(u("Person/p24")),dave23
            objectID,name,owner
            \(u("Car/p1")),Mustang,\(u("Person/p1"))
            objectID = \(u("Car/p1"))
            name     = Mustang
            """), "B's count of dave23 is 0, while A still finds dave23 and dave0's car:\n\(result.stdout)")
        // A's save resolves the conflict with the batch update and leaves A unpinned.
        XCTAssertTrue(result.stdout.hasSuffix("""
            g1
            saved into the store: 0 inserted, 1 updated, 0 deleted
            unpinned
            objectID,name
            \(u("Person/p24")),NAME_23

            """), result.stdout)
        XCTAssertTrue(result.stderr.contains("conflict resolved by object-trump: \(u("Person/p24"))"), result.stderr)

        // The store as another process sees it afterwards.
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT ZNAME, Z_OPT FROM ZPERSON WHERE Z_PK = 24"), "NAME_23|3")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZNAME = 'DaveUpdate'"), "49")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR WHERE Z_PK = 1"), "0")
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA integrity_check"), "ok")
    }
}

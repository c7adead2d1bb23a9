import Foundation
import XCTest

/// Golden logs of `--sql-debug` / `sqldebug N`: a fetch, a count, a fault, a save, a batch
/// update and a generation pin, each at levels 0 to 4, compared line for line with the
/// files in `Golden/sqldebug` once timings, statement addresses, plan ids and the temporary
/// folder are masked. Run with `CDINSPECT_UPDATE_GOLDEN=1` to rewrite the files after a
/// deliberate change, then read the diff.
final class SQLDebugLogTests: XCTestCase {
    /// Each scenario's commands; `sqldebug N` is inserted before the line marked `@`, so
    /// the log holds only that command's statements.
    static let scenarios: [(name: String, lines: [String])] = [
        ("fetch", ["@fetch Person --where 'age > 70 AND name BEGINSWITH \"dave\"' --sort age:desc --limit 2 --keys name,age"]),
        ("count", ["@count Person --where 'age > 70'"]),
        ("fault", ["@get Person/p2"]),
        ("save", ["update Person/p1 age=33 name=\"it's dave\"", "insert Tag name=new", "@save"]),
        ("batch-update", ["@batch-update Person --set age=age+1 --where 'age > 70' --result count"]),
        ("pin", ["pin", "@count Person"]),
    ]

    static var goldenFolder: URL {
        Fixtures.packageRoot.appendingPathComponent("Tests/EndToEndTests/Golden/sqldebug")
    }

    func testEachScenarioAtEachLevelMatchesItsGoldenLog() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let original = try Fixtures.exampleStore(in: folder, people: 50)
        let update = ProcessInfo.processInfo.environment["CDINSPECT_UPDATE_GOLDEN"] == "1"
        for (name, lines) in Self.scenarios {
            var previous: [String] = []
            for level in 0...4 {
                let run = folder.appendingPathComponent("\(name)-\(level)")
                try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
                let store = run.appendingPathComponent("People.sqlite")
                try FileManager.default.copyItem(at: original, to: store)
                let commands = lines.flatMap { $0.hasPrefix("@") ? ["sqldebug \(level)", String($0.dropFirst())] : [$0] }
                let result = try CLI.run([store.path] + commands.flatMap { ["-c", $0] })
                XCTAssertEqual(result.status, 0, "\(name) at level \(level): \(result.stderr)")
                let log = Self.mask(result.stderr, folder: run.path)
                let golden = Self.goldenFolder.appendingPathComponent("\(name).\(level).log")
                if update {
                    try log.write(to: golden, atomically: true, encoding: .utf8)
                } else {
                    let expected = try String(contentsOf: golden, encoding: .utf8)
                    XCTAssertEqual(log, expected, "\(name) at level \(level) differs from \(golden.lastPathComponent)")
                }
                // Each level adds lines and takes none away.
                let lines = log.split(separator: "\n").map(String.init)
                XCTAssertTrue(Self.isSubsequence(previous, of: lines), "\(name): level \(level) lost lines of level \(level - 1)")
                XCTAssertEqual(lines.isEmpty, level == 0, "\(name) at level \(level)")
                previous = lines
            }
        }
    }

    /// Every line the log writes is one of Core Data's categories.
    func testEveryLineHasCoreDataShape() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 20)
        let result = try CLI.run(["--sql-debug", "4", store.path, "-c", "get Person/p2", "-c", "delete Person/p2", "-c", "save",
                                  "-c", "batch-delete Tag --where 'name == \"x\"'"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for line in result.stderr.split(separator: "\n") {
            XCTAssertTrue(["CoreData: sql: ", "CoreData: annotation: ", "CoreData: details: "].contains { line.hasPrefix($0) }, String(line))
        }
        // Opening the store, the delete's own statements and the batch delete all appear.
        for expected in ["CoreData: annotation: Connecting to sqlite database file at \"\(store.path)\"",
                         "CoreData: sql: SELECT Z_UUID, Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1",
                         "CoreData: sql: DELETE FROM ZPERSON WHERE Z_PK = ? AND Z_OPT = ?",
                         "CoreData: sql: BEGIN EXCLUSIVE TRANSACTION",
                         "CoreData: details: SQLite bind[0] = x"] {
            XCTAssertTrue(result.stderr.contains(expected + "\n"), "missing: \(expected)")
        }
    }

    func testLevelIsCheckedAndShown() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 5)
        var r = try CLI.run(["-com.apple.CoreData.SQLDebug", "5", store.path, "-c", "count Person"])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("--sql-debug takes a level from 0 to 4"), r.stderr)
        r = try CLI.run(["-com.apple.CoreData.SQLDebug", "1", "count", store.path, "Person"])
        XCTAssertEqual(r.stdout, "5\n")
        XCTAssertTrue(r.stderr.contains("CoreData: sql: SELECT COUNT(*) FROM ZPERSON\n"), r.stderr)
        XCTAssertTrue(r.stderr.contains("CoreData: annotation: total count request execution time: "), r.stderr)
        r = try CLI.run([store.path, "-c", "sqldebug", "-c", "sqldebug 2", "-c", "sqldebug", "-c", "sqldebug 9"])
        XCTAssertEqual(r.stdout, "sqldebug 0\nsqldebug 2\n")
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("usage: sqldebug [0-4]"), r.stderr)
    }

    static func mask(_ log: String, folder: String) -> String {
        var text = log.replacingOccurrences(of: folder, with: "$STORE_DIR")
        for (pattern, replacement) in [(#"\d+\.\d{4}s"#, "#.####s"), (#"<0x[0-9a-f]+>"#, "<0x#>"),
                                       (#"(?m)^CoreData: details: \d+ \d+ \d+ "#, "CoreData: details: # # # ")] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    static func isSubsequence(_ small: [String], of large: [String]) -> Bool {
        var i = small.startIndex
        for line in large where i < small.endIndex && line == small[i] { i += 1 }
        return i == small.endIndex
    }
}

import Foundation
import XCTest

/// `cdinspect profile LOG`: an app's SQL debug log added up by statement shape, its fault bursts
/// found with their relationship, every Core Data line counted or listed.
final class ProfileTests: ExampleStoreTestCase {
    func profile(_ log: String, _ extra: [String] = []) throws -> [String: Any] {
        let file = folder.appendingPathComponent("console-\(UUID().uuidString).log")
        try Data(log.utf8).write(to: file)
        let run = try CLI.run(["profile", file.path, "--format", "json"] + extra)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout + run.stderr)
    }

    /// A session that follows one to-many per parent, one at a time: cdinspect's own
    /// `--sql-debug` log of it holds the burst, named with its relationship and its count.
    func testAFaultBurstInALogIsFoundWithItsRelationship() throws {
        var arguments = [store!, "--sql-debug", "1"]
        for key in 1...12 { arguments += ["-c", "get Person/p\(key)"] }
        arguments += ["-c", "fetch Person --where 'age > 30' --limit 5", "-c", "update Person/p1 age=3", "-c", "save"]
        let session = try CLI.run(arguments)
        XCTAssertEqual(session.status, 0, session.stderr)
        let log = session.stderr
        XCTAssertTrue(log.contains("to-many relationship fault \"cars\""), log)
        let answer = try profile(log, ["--store", store])
        // Each object's row, its cars and its tags, twelve times over: three bursts.
        let bursts = try XCTUnwrap(answer["faultBursts"] as? [[String: Any]])
        XCTAssertEqual(bursts.map { "\($0["kind"] ?? "") \($0["relationship"] as? String ?? "-") \($0["entity"] ?? "") \($0["count"] ?? "")" },
                       ["object - Person 12", "to-many cars Person 12", "to-many tags Person 12"])
        let cars = try XCTUnwrap(bursts.first { $0["relationship"] as? String == "cars" })
        XCTAssertTrue((cars["advice"] as? String ?? "").contains("relationshipKeyPathsForPrefetching = [\"cars\"]"))
        let shapes = try XCTUnwrap(answer["shapes"] as? [[String: Any]])
        // The twelve faults' statement is one shape, run twelve times, on the Car table.
        XCTAssertTrue(shapes.contains { $0["count"] as? Int == 12 && $0["entity"] as? String == "Car" }, "\(shapes)")
        // The fetch with its predicate read back in the model's terms.
        XCTAssertTrue(shapes.contains { ($0["predicate"] as? String)?.contains("age > ?") == true }, "\(shapes)")
        let saves = try XCTUnwrap(answer["saves"] as? [[String: Any]])
        XCTAssertTrue(saves.contains { $0["updates"] as? Int == 1 }, "\(saves)")
        // Every Core Data line counted, none left unread.
        let lines = try XCTUnwrap(answer["lines"] as? [String: Any])
        XCTAssertEqual(lines["coreData"] as? Int, log.split(separator: "\n").filter { $0.contains("CoreData: ") }.count)
        XCTAssertEqual(lines["notUnderstood"] as? Int, 0, "\(answer["notUnderstood"] ?? "")")
        XCTAssertEqual(shapes.reduce(0) { $0 + ($1["count"] as? Int ?? 0) }, log.split(separator: "\n").filter { $0.hasPrefix("CoreData: sql: ") }.count)
    }

    /// Shapes strip bound values and literals, count, time and rows from Core Data's own
    /// annotations; a Core Data line of another kind is listed, not dropped; the table face
    /// lists the slowest first.
    func testShapesTimesAndLinesNotUnderstood() throws {
        let log = """
            2026-11-28 10:00:00.001 App[1:2] CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZAGE FROM ZPERSON t0 WHERE t0.ZAGE > ?
            2026-11-28 10:00:00.002 App[1:2] CoreData: details: SQLite bind[0] = 18
            2026-11-28 10:00:00.003 App[1:2] CoreData: annotation: sql connection fetch time: 0.4789s
            2026-11-28 10:00:00.004 App[1:2] CoreData: annotation: total fetch execution time: 0.5000s for 688 rows.
            CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZAGE FROM ZPERSON t0 WHERE t0.ZAGE > 21
            CoreData: annotation: total fetch execution time: 0.1000s for 12 rows.
            CoreData: sql: SELECT COUNT(*) FROM ZCAR
            CoreData: annotation: total count request execution time: 0.0200s for count of 190.
            a line of the app's own
            CoreData: annotation: something Core Data says that no reference shows
            """
        let answer = try profile(log, ["--store", store])
        let shapes = try XCTUnwrap(answer["shapes"] as? [[String: Any]])
        XCTAssertEqual(shapes.first?["shape"] as? String, "SELECT ?, t0.Z_PK, t0.Z_OPT, t0.ZAGE FROM ZPERSON t0 WHERE t0.ZAGE > ?")
        XCTAssertEqual(shapes.first?["count"] as? Int, 2)
        XCTAssertEqual(shapes.first?["totalMilliseconds"] as? Double, 600)
        XCTAssertEqual(shapes.first?["worstMilliseconds"] as? Double, 500)
        XCTAssertEqual(shapes.first?["rows"] as? Int, 700)
        XCTAssertEqual(shapes.first?["entity"] as? String, "Person")
        XCTAssertEqual(shapes.first?["predicate"] as? String, "age > ?")
        // With the store, the slowest fetch is explained, with its index advice.
        let plan = try XCTUnwrap(shapes.first?["plan"] as? [String: Any])
        XCTAssertEqual(plan["steps"] as? [String], ["SCAN Person"])
        XCTAssertEqual(((plan["advice"] as? [[String: Any]])?.first)?["swiftData"] as? String, "#Index<Person>([\\.age])")
        XCTAssertEqual(shapes.last?["kind"] as? String, "count")
        XCTAssertEqual(shapes.last?["entity"] as? String, "Car")
        let unread = try XCTUnwrap(answer["notUnderstood"] as? [[String: Any]])
        XCTAssertEqual(unread.map { $0["line"] as? Int }, [10])
        XCTAssertEqual((answer["lines"] as? [String: Any])?["other"] as? Int, 1)
        let table = try CLI.run(["profile", "-"], stdin: log)
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("1 Core Data line not understood:\n  10: CoreData: annotation: something Core Data says"), table.stdout)
        // Piped in with no LOG, as `cdinspect profile < app.log` reads it.
        XCTAssertEqual(try CLI.run(["profile"], stdin: log).stdout, table.stdout)
        let missing = try CLI.run(["profile", folder.appendingPathComponent("none.log").path])
        XCTAssertEqual(missing.stderr, "cdinspect: error: no such log file: \(folder.appendingPathComponent("none.log").path)\n")
    }

    /// The genuine log lines the SQL debug reference quotes (Core Data's own output, from the
    /// sources it names): every one is counted in a shape or listed as not understood.
    func testTheReferencesGenuineLinesAreAllRead() throws {
        let text = try String(contentsOf: try SharedFiles.require("reference/sqldebug-log.md"), encoding: .utf8)
        var log: [String] = []
        var inBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inBlock.toggle(); continue }
            if inBlock { log.append(String(line)) }
        }
        let answer = try profile(log.joined(separator: "\n"))
        let lines = try XCTUnwrap(answer["lines"] as? [String: Any])
        // Lines in Core Data's format (the reference's "CoreData: <category>: <message>" is its grammar, not a line).
        let format = try NSRegularExpression(pattern: #"CoreData: [A-Za-z]+: |^\s*(?:sql|annotation|details): "#)
        let coreData = log.filter { format.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
        XCTAssertGreaterThan(coreData.count, 40)
        XCTAssertEqual((lines["coreData"] as? Int ?? 0) , coreData.count)
        let statements = coreData.filter { line in line.contains("CoreData: sql: ") || line.drop { $0 == " " }.hasPrefix("sql: ") }.count
        let shapes = try XCTUnwrap(answer["shapes"] as? [[String: Any]])
        XCTAssertEqual(shapes.reduce(0) { $0 + ($1["count"] as? Int ?? 0) }, statements)
        // What is left unread is listed with its line, for a reader to see.
        for unread in answer["notUnderstood"] as? [[String: Any]] ?? [] { XCTAssertNotNil(unread["text"] as? String) }
        // The to-many fault of the fatbobman sample is read, the insert's save is seen.
        XCTAssertTrue(shapes.contains { $0["shape"] as? String == "SELECT COUNT(*) FROM ZITEM" })
        XCTAssertFalse((answer["saves"] as? [[String: Any]] ?? []).isEmpty)
    }
}

import Foundation
import XCTest

/// `sql`: read-only SQL in the session's formats, as a subcommand and in a session.
final class SQLCommandTests: ExampleStoreTestCase {
    func testReadsInEveryFrontEndAndRefusesWrites() throws {
        var r = try CLI.run(["sql", store, "SELECT Z_PK, ZNAME FROM ZPERSON WHERE ZNAME LIKE 'dave1%' ORDER BY Z_PK", "--format", "csv", "--limit", "2"])
        XCTAssertEqual(r.stdout, "Z_PK,ZNAME\n2,dave1\n11,dave10\n", r.stderr)
        // In a session the rest of the line is the query, quotes and all.
        r = try CLI.run([store, "--format", "json", "-c", "sql SELECT ZNAME AS name FROM ZPERSON WHERE ZNAME = 'dave3'"])
        XCTAssertEqual(r.stdout, "[\n  {\"name\": \"dave3\"}\n]\n", r.stderr)
        // explain's output pasted whole, bindings included.
        let explained = try CLI.run(["explain", store, "Person", "--where", "name == \"dave1\" AND age > 3"]).stdout
        r = try CLI.run(["sql", store, explained, "--format", "csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 2, r.stdout)
        XCTAssertTrue(r.stdout.contains(",dave1,"), r.stdout)

        let before = try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON")
        for (sql, message) in [("DELETE FROM ZPERSON", "would change the store"), ("PRAGMA journal_mode = delete", "would change the store"),
                               ("SELEC 1", "SQL error: near \"SELEC\": syntax error"), ("SELECT ?", "1 ? parameter and 0 values")] {
            r = try CLI.run(["sql", store, sql])
            XCTAssertEqual(r.status, 1, sql)
            XCTAssertTrue(r.stderr.hasPrefix("cdinspect: error: ") && r.stderr.contains(message), "\(sql): \(r.stderr)")
        }
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON"), before)
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA journal_mode"), "wal")
    }
}

import Foundation
import XCTest

/// `history purge` against SQL on copies of genuine history stores: the transactions up to
/// the token, their changes and the strings only they named are gone, every other row of
/// every table is as it was, and `history` reads the rest.
final class HistoryPurgeTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    func copy(_ relative: String) throws -> String {
        let into = folder.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        return try Fixtures.copy(relative, into: into).path
    }

    /// Every table's rows, as the sqlite3 shell prints them in key order.
    func tables(_ store: String) throws -> [String: String] {
        let names = try SQLiteShell.read(store, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .split(separator: "\n").map(String.init)
        var result: [String: String] = [:]
        for name in names { result[name] = try SQLiteShell.read(store, "SELECT * FROM \"\(name)\" ORDER BY rowid") }
        return result
    }

    /// The strings the transactions after `token` name, by the columns Core Data interns.
    func stringsNamedAfter(_ token: Int, _ store: String) throws -> String {
        let columns = try SQLiteShell.read(store, "SELECT name FROM pragma_table_info('ATRANSACTION') WHERE name LIKE 'Z%TS'").split(separator: "\n")
        let named = columns.map { "SELECT \($0) FROM ATRANSACTION WHERE Z_PK > \(token)" }.joined(separator: " UNION ")
        return try SQLiteShell.read(store, "SELECT * FROM ATRANSACTIONSTRING WHERE Z_PK IN (\(named)) ORDER BY rowid")
    }

    func testPurgeBeforeATokenOnGenuineStores() throws {
        for (relative, token) in [("log2timeline_plaso/RMAdminStore-Local.sqlite", 500), ("RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite", 30)] {
            let store = try copy(relative)
            let before = try tables(store)
            let keptTransactions = try SQLiteShell.read(store, "SELECT * FROM ATRANSACTION WHERE Z_PK > \(token) ORDER BY rowid")
            let keptChanges = try SQLiteShell.read(store, "SELECT * FROM ACHANGE WHERE ZTRANSACTIONID > \(token) ORDER BY rowid")
            let keptStrings = try stringsNamedAfter(token, store)
            let purgedTransactions = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ATRANSACTION WHERE Z_PK <= \(token)")) ?? -1
            let purgedChanges = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ACHANGE WHERE ZTRANSACTIONID <= \(token)")) ?? -1

            // A dry run says the same numbers and changes nothing.
            let dry = try XCTUnwrap(CLI.json(["history", store, "purge", "--before", String(token), "--dry-run", "--format", "json"]) as? [String: Any])
            XCTAssertEqual(dry["transactions"] as? Int, purgedTransactions, relative)
            XCTAssertEqual(dry["changes"] as? Int, purgedChanges, relative)
            XCTAssertEqual(try tables(store), before, relative)

            let r = try CLI.run(["history", store, "purge", "--before", String(token)])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.hasPrefix("deleted \(purgedTransactions) transaction(s), \(purgedChanges) change(s)"), r.stdout)
            let after = try tables(store)
            XCTAssertEqual(after["ATRANSACTION"], keptTransactions, relative)
            XCTAssertEqual(after["ACHANGE"], keptChanges, relative)
            XCTAssertEqual(after["ATRANSACTIONSTRING"], keptStrings, relative)
            for (name, rows) in before where !["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"].contains(name) {
                XCTAssertEqual(after[name], rows, "\(relative): \(name) changed")
            }
            // history reads the rest, and a reader at the token goes on from it.
            let first = try XCTUnwrap(CLI.json(["history", store, "--limit", "1", "--format", "json"]) as? [[String: Any]])
            XCTAssertEqual(first.first?["token"] as? Int, token + 1, relative)
            XCTAssertEqual(try CLI.run(["history", store, "--after", String(token), "--limit", "1"]).status, 0)
            let expired = try CLI.run(["history", store, "--after", String(token - 1)])
            XCTAssertEqual(expired.status, 1)
            XCTAssertTrue(expired.stderr.contains("134301"), expired.stderr)
        }
    }

    func testPurgeBeforeADateAndWhatIsRefused() throws {
        let store = try copy("log2timeline_plaso/RMAdminStore-Local.sqlite")
        let date = "2021-02-01"
        let seconds = Date(timeIntervalSince1970: 1_612_137_600).timeIntervalSinceReferenceDate
        let purged = try SQLiteShell.read(store, "SELECT count(*) FROM ATRANSACTION WHERE ZTIMESTAMP < \(seconds)")
        let kept = try SQLiteShell.read(store, "SELECT * FROM ATRANSACTION WHERE ZTIMESTAMP >= \(seconds) ORDER BY rowid")
        XCTAssertNotEqual(purged, "0")

        // Refused read-only, while a context is pinned, and for a token past the last.
        var r = try CLI.run(["history", store, "purge", "--before", date, "--readonly"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("read-only"), r.stderr)
        r = try CLI.run([store], stdin: "fetch InstalledApp --limit 1\npin\ncount InstalledApp\nhistory purge --before \(date)\n")
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("pinned to a query generation"), r.stderr)
        r = try CLI.run(["history", store, "purge", "--before", "99999"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("holds transactions 101 to 1039"), r.stderr)
        r = try CLI.run(["history", store, "purge"])
        XCTAssertEqual(r.status, 64, r.stderr)
        r = try CLI.run(["history", store, "purge", "--before", "500", "--changes"])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ATRANSACTION"), "939", "nothing was deleted")

        r = try CLI.run(["history", store, "purge", "--before", date])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT * FROM ATRANSACTION ORDER BY rowid"), kept)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ACHANGE WHERE ZTRANSACTIONID NOT IN (SELECT Z_PK FROM ATRANSACTION)"), "0")
    }
}

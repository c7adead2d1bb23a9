import Foundation
import XCTest

/// `history` on the genuine history stores among the fixtures (every row listed, filters
/// equal to their SQL), and the history our own writes leave, read back both ways.
final class HistoryTests: XCTestCase {
    static let historyStores = [
        "RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite",
        "RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite",
        "RhetTbull_PhotoScript/Photos.sqlite",
        "alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite",
        "alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V2.sqlite",
    ]

    func copy(_ fixture: String) throws -> String {
        try Fixtures.copy(fixture, into: try Fixtures.temporaryDirectory(self)).path
    }

    func history(_ store: String, _ arguments: [String]) throws -> [[String: Any]] {
        try XCTUnwrap(CLI.json(["history", store, "--format", "json"] + arguments) as? [[String: Any]])
    }

    func changes(_ store: String, _ arguments: [String] = []) throws -> [[String: Any]] {
        try history(store, ["--changes"] + arguments).flatMap { try XCTUnwrap($0["changes"] as? [[String: Any]]) }
    }

    /// A quirk of the store (Notes' history numbering ICFolder's to-manys its own way) is said
    /// the first time a session meets it, not on every command that meets it again.
    func testAStoresQuirkIsWarnedOncePerSession() throws {
        let store = try copy("RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite")
        let one = try CLI.run(["history", store, "--changes", "--limit", "1", "--format", "csv"])
        XCTAssertEqual(one.stderr.components(separatedBy: "numbers ICFolder's to-many").count - 1, 1, one.stderr)
        let session = try CLI.run([store], stdin: "history --changes --limit 1 --format csv\nhistory --changes --limit 2 --format csv\n")
        XCTAssertEqual(session.status, 0, session.stderr)
        XCTAssertEqual(session.stderr.components(separatedBy: "numbers ICFolder's to-many").count - 1, 1, session.stderr)
    }

    /// Flat listings of changes (CSV, table) carry each change's transaction time and author,
    /// so a CSV merges into a timeline without a join on the token.
    func testEachChangeInCSVHasItsTransactionsTimeAndAuthor() throws {
        let store = try copy("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite")
        let csv = try CLI.run(["history", store, "--changes", "--format", "csv", "--limit", "50"])
        XCTAssertEqual(csv.status, 0, csv.stderr)
        let lines = csv.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "token,timestamp,author,type,entity,objectID,updated,tombstone")
        let transactions = try history(store, [])
        let times = Dictionary(transactions.map { ("\($0["token"] ?? "")", $0["timestamp"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(lines.count, 51)
        for line in lines.dropFirst() {
            let fields = line.split(separator: ",", maxSplits: 2).map(String.init)
            XCTAssertEqual(fields[1], times[fields[0]], line)
            XCTAssertFalse(fields[1].isEmpty, line)
        }
    }

    func testEveryTransactionAndChangeOfEveryFixtureIsListedAndResolves() throws {
        for fixture in Self.historyStores {
            let store = try copy(fixture)
            let transactions = try history(store, [])
            XCTAssertEqual(String(transactions.count), try SQLiteShell.read(store, "SELECT count(*) FROM ATRANSACTION"), fixture)
            let perType = transactions.reduce(into: [0, 0, 0]) { sums, t in
                for (i, key) in ["inserts", "updates", "deletes"].enumerated() { sums[i] += t[key] as? Int ?? -1_000_000 }
            }
            XCTAssertEqual(perType.map(String.init).joined(separator: "|"), try SQLiteShell.read(
                store, "SELECT sum(ZCHANGETYPE = 0), sum(ZCHANGETYPE = 1), sum(ZCHANGETYPE = 2) FROM ACHANGE"), fixture)

            let schema = try XCTUnwrap(CLI.json(["schema", store, "--format", "json"]) as? [[String: Any]])
            var properties: [String: Set<String>] = [:]
            for entity in schema {
                let names = ["attributes", "relationships", "fetchedProperties"].flatMap { ($0 as String, entity[$0] as? [[String: Any]] ?? []).1 }
                    .compactMap { $0["name"] as? String }
                properties[entity["name"] as? String ?? ""] = Set(names)
            }
            let all = try changes(store)
            XCTAssertEqual(String(all.count), try SQLiteShell.read(store, "SELECT count(*) FROM ACHANGE"), fixture)
            for change in all {
                let entity = try XCTUnwrap(change["entity"] as? String)
                XCTAssertNotNil(properties[entity], "\(fixture): \(entity) does not resolve")
                XCTAssertTrue((change["objectID"] as? String)?.contains("/\(entity)/p") == true, "\(fixture): \(change)")
                // A named bit names one of the entity's own properties; the rest are #N.
                for name in change["updated"] as? [String] ?? [] where !name.hasPrefix("#") {
                    XCTAssertTrue(properties[entity]?.contains(name) == true, "\(fixture): \(entity) has no property \(name)")
                }
                XCTAssertEqual(change["updated"] is NSNull, change["type"] as? String != "update", "\(fixture): \(change)")
            }
        }
    }

    /// The ZCOLUMNS rule on Notes (docs/history-bitmaps.md): note bodies change `data`;
    /// ICCloudState's bitmaps set bits 2 and 5 of an entity with five properties, its to-one
    /// into a hierarchy taking two bits.
    func testUpdatedPropertiesOfNotesReadAsTheRuleSays() throws {
        let store = try copy("RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite")
        let updates = try changes(store, ["--type", "update"])
        let noteData = updates.filter { $0["entity"] as? String == "ICNoteData" }.compactMap { $0["updated"] as? [String] }
        XCTAssertEqual(noteData.count, 28)
        XCTAssertEqual(Set(noteData), [["data"]])
        let cloudStates = updates.filter { $0["entity"] as? String == "ICCloudState" }.compactMap { $0["updated"] as? [String] }
        XCTAssertEqual(cloudStates.count, 84)
        XCTAssertEqual(Set(cloudStates), [["currentLocalVersion", "localVersionDate"]])
    }

    /// Tokens as Core Data checks them: text is not a token, a token past the newest names
    /// the span kept, and one whose successors were deleted has expired.
    func testTokensPastTheEndOrPurgedAreRefused() throws {
        let store = try copy("RhetTbull_PhotoScript/Photos.sqlite")
        _ = try SQLiteShell.run(store, "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= 10; DELETE FROM ATRANSACTION WHERE Z_PK <= 10;")
        let last = try SQLiteShell.read(store, "SELECT max(Z_PK) FROM ATRANSACTION")
        let expired = try CLI.run(["history", store, "--after", "5"])
        XCTAssertEqual(expired.status, 1)
        XCTAssertTrue(expired.stderr.contains("the history token 5 has expired (NSPersistentHistoryTokenExpiredError, 134301)")
                      && expired.stderr.contains("the oldest transaction kept is 11"), expired.stderr)
        XCTAssertEqual(try history(store, ["--after", "10"]).first?["token"] as? Int, 11)
        let past = try CLI.run(["history", store, "--after", "5000"])
        XCTAssertTrue(past.stderr.contains("5000 is not a history token of this store: its history holds transactions 11 to \(last)"),
                      past.stderr)
        let text = try CLI.run(["history", store, "--after", "abc"])
        XCTAssertTrue(text.stderr.contains("'abc' is not a history token: a token is a transaction number"), text.stderr)
    }

    /// Tombstones in Core Data's order: knowledgeC's `Event` deletes keep `uuid` (declared by
    /// its parent `Object`) in ZTOMBSTONE0 and its own `shouldSync` in ZTOMBSTONE1; read so,
    /// and written so by a batch delete of ours.
    func testTombstonesOfInheritedAttributesReadAndWriteInCoreDatasOrder() throws {
        let store = try copy("log2timeline_plaso/knowledgec-10.13.db")
        let event = try SQLiteShell.read(store, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Event'")
        let deletes = try changes(store, ["--type", "delete", "--entity", "Event"])
        XCTAssertEqual(deletes.count, 507)
        let rows = try SQLiteShell.read(store, """
            SELECT ZTOMBSTONE0 || '|' || ZTOMBSTONE1 FROM ACHANGE WHERE ZCHANGETYPE = 2 AND ZENTITY = \(event) ORDER BY ZTRANSACTIONID, Z_PK
            """).split(separator: "\n").map(String.init)
        XCTAssertEqual(deletes.map { change -> String in
            let tombstone = change["tombstone"] as? [String: Any] ?? [:]
            return "\(tombstone["uuid"] as? String ?? "-")|\((tombstone["shouldSync"] as? Bool).map { $0 ? "1" : "0" } ?? "-")"
        }, rows)

        let last = try SQLiteShell.read(store, "SELECT max(Z_PK) FROM ATRANSACTION")
        let victim = try SQLiteShell.read(store, "SELECT Z_PK FROM ZOBJECT WHERE Z_ENT = \(event) AND ZUUID IS NOT NULL LIMIT 1")
        let uuid = try SQLiteShell.read(store, "SELECT ZUUID FROM ZOBJECT WHERE Z_PK = \(victim)")
        let r = try CLI.run(["batch-delete", store, "Event", "--where", "SELF == 'Event/p\(victim)'"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT ZTOMBSTONE0 FROM ACHANGE WHERE ZTRANSACTIONID > \(last) AND ZCHANGETYPE = 2"), uuid)
    }

    /// `--since` keeps every digit of the fraction: a transaction at …50.919846 is after
    /// …50.91984 and before …50.91985.
    func testSinceKeepsDigitsBelowAMillisecond() throws {
        let store = try copy("RhetTbull_PhotoScript/Photos.sqlite")
        let moment = 754_000_000.919846
        _ = try SQLiteShell.run(store, "UPDATE ATRANSACTION SET ZTIMESTAMP = 0; "
                                + "UPDATE ATRANSACTION SET ZTIMESTAMP = \(moment) WHERE Z_PK = (SELECT max(Z_PK) FROM ATRANSACTION)")
        let day = ISO8601DateFormatter().string(from: Date(timeIntervalSinceReferenceDate: 754_000_000)).dropLast()
        XCTAssertEqual(try history(store, ["--since", day + ".91984Z"]).count, 1)
        XCTAssertEqual(try history(store, ["--since", day + ".919846Z"]).count, 1)
        XCTAssertEqual(try history(store, ["--since", day + ".91985Z"]).count, 0)
        XCTAssertEqual(try history(store, ["--since", day + ".9199Z"]).count, 0)
    }

    func testFiltersGiveTheRowsOfTheirSQL() throws {
        let store = try copy("RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite")
        func sqlKeys(_ sql: String) throws -> [Int] { try SQLiteShell.read(store, sql).split(separator: "\n").compactMap { Int($0) } }
        func tokens(_ arguments: [String]) throws -> [Int] { try history(store, arguments).compactMap { $0["token"] as? Int } }
        let note = try SQLiteShell.read(store, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'ICNote'")

        XCTAssertEqual(try tokens(["--after", "20", "--limit", "5"]), try sqlKeys("SELECT Z_PK FROM ATRANSACTION WHERE Z_PK > 20 ORDER BY Z_PK LIMIT 5"))
        let since = try SQLiteShell.read(store, "SELECT CAST(ZTIMESTAMP AS INTEGER) FROM ATRANSACTION WHERE Z_PK = 10")
        let until = try SQLiteShell.read(store, "SELECT CAST(ZTIMESTAMP AS INTEGER) FROM ATRANSACTION WHERE Z_PK = 40")
        let iso = { (seconds: String) in
            let f = ISO8601DateFormatter()
            return f.string(from: Date(timeIntervalSinceReferenceDate: Double(seconds)!))
        }
        XCTAssertEqual(try tokens(["--since", iso(since), "--until", iso(until)]),
                       try sqlKeys("SELECT Z_PK FROM ATRANSACTION WHERE ZTIMESTAMP >= \(since) AND ZTIMESTAMP <= \(until) ORDER BY Z_PK"))
        XCTAssertEqual(try tokens(["--context-name", "ViewContext", "--entity", "ICNote", "--type", "update"]), try sqlKeys("""
            SELECT DISTINCT t.Z_PK FROM ATRANSACTION t JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZCONTEXTNAMETS
            JOIN ACHANGE c ON c.ZTRANSACTIONID = t.Z_PK WHERE s.ZNAME = 'ViewContext' AND c.ZENTITY = \(note) AND c.ZCHANGETYPE = 1 ORDER BY t.Z_PK
            """))
        XCTAssertEqual(try tokens(["--author", "960"]), try sqlKeys(
            "SELECT t.Z_PK FROM ATRANSACTION t JOIN ATRANSACTIONSTRING s ON s.Z_PK = t.ZAUTHORTS WHERE s.ZNAME = '960' ORDER BY t.Z_PK"))
        // Transactions count only the changes the filters keep.
        let counted = try history(store, ["--entity", "ICNote", "--type", "update"]).map { $0["updates"] as? Int ?? 0 }.reduce(0, +)
        XCTAssertEqual(String(counted), try SQLiteShell.read(store, "SELECT count(*) FROM ACHANGE WHERE ZENTITY = \(note) AND ZCHANGETYPE = 1"))

        // One object's life, in commit order.
        let key = try SQLiteShell.read(store, "SELECT ZENTITYPK FROM ACHANGE WHERE ZENTITY = \(note) GROUP BY ZENTITYPK ORDER BY count(*) DESC LIMIT 1")
        let life = try changes(store, ["--object", "ICNote/p\(key)"])
        XCTAssertEqual(life.map { $0["type"] as? String ?? "" }, try SQLiteShell.read(store, """
            SELECT CASE ZCHANGETYPE WHEN 0 THEN 'insert' WHEN 1 THEN 'update' ELSE 'delete' END FROM ACHANGE
            WHERE ZENTITY = \(note) AND ZENTITYPK = \(key) ORDER BY ZTRANSACTIONID, Z_PK
            """).split(separator: "\n").map(String.init))
        XCTAssertGreaterThan(life.count, 1)
    }

    func testSavesAndBatchRequestsRecordOneTransactionEachWithTombstones() throws {
        let store = try copy("RhetTbull_PhotoScript/Photos.sqlite")
        let last = try XCTUnwrap(Int(try SQLiteShell.read(store, "SELECT max(Z_PK) FROM ATRANSACTION")))
        let r = try CLI.run([store, "-c", "insert Keyword title=sunset uuid=K-1", "-c", "insert Keyword title=dawn uuid=K-2", "-c", "save",
                             "-c", "update Keyword/p1 title=dusk", "-c", "context set author tester", "-c", "save",
                             "-c", "batch-update Keyword --set title=night --where \"uuid == 'K-2'\"",
                             "-c", "batch-delete Keyword"])
        XCTAssertEqual(r.status, 0, r.stderr)

        let transactions = try history(store, ["--after", String(last)])
        XCTAssertEqual(transactions.map { $0["author"] as? String ?? "" }, ["cdinspect", "tester", "tester", "tester"])
        XCTAssertEqual(transactions.map { $0["contextName"] as? String ?? "" }, ["main", "main", "main", "main"])
        XCTAssertEqual(transactions.map { [$0["inserts"] as? Int, $0["updates"] as? Int, $0["deletes"] as? Int] },
                       [[2, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 2]])

        let recorded = try changes(store, ["--after", String(last)])
        XCTAssertEqual(recorded.map { "\($0["type"]!) \(($0["objectID"] as? String)?.split(separator: "/").suffix(2).joined(separator: "/") ?? "")" },
                       ["insert Keyword/p1", "insert Keyword/p2", "update Keyword/p1", "update Keyword/p2", "delete Keyword/p1", "delete Keyword/p2"])
        XCTAssertEqual(recorded[2]["updated"] as? [String], ["title"])
        XCTAssertEqual(recorded[3]["updated"] as? [String], ["title"])
        XCTAssertEqual(recorded[4]["tombstone"] as? [String: String], ["uuid": "K-1"])
        XCTAssertEqual(recorded[5]["tombstone"] as? [String: String], ["uuid": "K-2"])

        // The same rows as SQL sees them: one ATRANSACTION per write, keys counted in Z_PRIMARYKEY.
        let keyword = try SQLiteShell.read(store, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Keyword'")
        XCTAssertEqual(try SQLiteShell.read(store, """
            SELECT group_concat((ZTRANSACTIONID - \(last)) || ':' || ZCHANGETYPE || ':' || ZENTITY || ':' || ZENTITYPK || ':' || ifnull(ZTOMBSTONE0, '-'), ' ')
            FROM (SELECT * FROM ACHANGE WHERE ZTRANSACTIONID > \(last) ORDER BY Z_PK)
            """), "1:0:\(keyword):1:- 1:0:\(keyword):2:- 2:1:\(keyword):1:- 3:1:\(keyword):2:- 4:2:\(keyword):1:K-1 4:2:\(keyword):2:K-2")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002) = max(Z_PK) FROM ATRANSACTION"), "1")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001) = max(Z_PK) FROM ACHANGE"), "1")
    }

    /// A batch update over a table two entities share records one change per row, each
    /// under the row's own entity, with that entity's bitmap for the key, in one transaction
    /// whose change keys follow on from the counter: what the app's history fetch reads.
    func testABatchUpdateOfAHierarchyRecordsEachRowUnderItsEntity() throws {
        let store = try Fixtures.exampleStore(in: try Fixtures.temporaryDirectory(self), history: true).path
        let before = try XCTUnwrap(Int(try SQLiteShell.read(store, "SELECT ifnull(max(Z_PK), 0) FROM ACHANGE")))
        let r = try CLI.run(["batch-update", store, "Car", "--set", "year=year+1", "--result", "count"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "50\n")
        // Every car once, under its concrete entity (Car or SportsCar), as an update.
        XCTAssertEqual(try SQLiteShell.read(store, """
            SELECT count(*), count(DISTINCT c.ZENTITYPK), sum(c.ZENTITY = t.Z_ENT), sum(c.ZCHANGETYPE = 1),
                   min(c.Z_PK) = \(before + 1), max(c.Z_PK) = \(before + 50), count(DISTINCT c.ZTRANSACTIONID)
            FROM ACHANGE c JOIN ZCAR t ON t.Z_PK = c.ZENTITYPK WHERE c.Z_PK > \(before)
            """), "50|50|50|50|1|1|1")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(DISTINCT ZENTITY) FROM ACHANGE WHERE Z_PK > \(before)"), "2")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16001) = max(Z_PK) FROM ACHANGE"), "1")
        let recorded = try changes(store, ["--after", "0"]).filter { ($0["type"] as? String) == "update" }
        XCTAssertEqual(recorded.count, 50)
        XCTAssertEqual(Set(recorded.map { $0["updated"] as? [String] ?? [] }), [["year"]], "each entity's bitmap names the key")
    }

    func testBadInputGetsOneLineAndExitOne() throws {
        let store = try copy("RhetTbull_PhotoScript/Photos.sqlite")
        let plain = try copy("alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V1.sqlite")
        let cases: [([String], String)] = [
            (["history", plain], "has no persistent history"),
            (["history", store, "--after", "9999"], "9999 is not a history token of this store"),
            (["history", store, "--after", "abc"], "'abc' is not a history token"),
            (["history", store, "--since", "last tuesday"], "'last tuesday' is not a date"),
            (["history", store, "--object", "x-coredata://00000000-0000-0000-0000-000000000000/Asset/p1"], "belongs to another store"),
            (["history", store, "--entity", "Nope"], "Nope"),
        ]
        for (arguments, message) in cases {
            let r = try CLI.run(arguments)
            XCTAssertEqual(r.status, 1, "\(arguments): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(arguments)")
            XCTAssertTrue(r.stderr.hasPrefix("cdinspect: error: ") && r.stderr.contains(message), "\(arguments): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(arguments): \(r.stderr)")
        }
        let info = try XCTUnwrap(CLI.json(["info", plain, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(info["persistentHistory"] as? Bool, false)
        XCTAssertNil(info["historyTransactions"])
    }
}

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
        for (sql, message) in [("DELETE FROM ZPERSON", "a statement that changes rows is not allowed"),
                               ("PRAGMA journal_mode = delete", "PRAGMA journal_mode with a value is not allowed"),
                               ("SELEC 1", "SQL error: near \"SELEC\": syntax error"), ("SELECT ?", "1 ? parameter and 0 values")] {
            r = try CLI.run(["sql", store, sql])
            XCTAssertEqual(r.status, 1, sql)
            XCTAssertTrue(r.stderr.hasPrefix("cdinspect: error: ") && r.stderr.contains(message), "\(sql): \(r.stderr)")
        }
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON"), before)
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA journal_mode"), "wal")
    }

    /// Statements a hostile prompt sends, each refused by SQLite's own controls or stopped by
    /// a limit, one-shot and in a session: never a crash or a hang, never a file created or a
    /// byte changed, and no setting that outlives its statement.
    static func hostileStatements(_ folder: String) -> [String] {
        [
            "BEGIN", "BEGIN DEFERRED", "BEGIN IMMEDIATE", "SAVEPOINT a", "COMMIT", "ROLLBACK", "RELEASE a", "END",
            "ATTACH DATABASE '\(folder)/other.sqlite' AS o", "ATTACH ':memory:' AS m", "DETACH o",
            "SELECT fts3_tokenizer('simple')", "SELECT fts3_tokenizer('x', x'4141414141414141')",
            "PRAGMA hard_heap_limit=100000", "PRAGMA soft_heap_limit=1", "PRAGMA writable_schema=1", "PRAGMA locking_mode=EXCLUSIVE",
            "PRAGMA mmap_size=1", "PRAGMA cache_size=1", "PRAGMA busy_timeout=1", "PRAGMA max_page_count=1", "PRAGMA synchronous=OFF",
            "PRAGMA case_sensitive_like=1", "PRAGMA temp_store_directory='\(folder)'", "PRAGMA query_only=0", "PRAGMA trusted_schema=1",
            "PRAGMA journal_mode=DELETE", "PRAGMA foreign_keys=ON", "PRAGMA writable_schema", "PRAGMA wal_checkpoint(TRUNCATE)",
            "PRAGMA optimize", "PRAGMA incremental_vacuum",
            "WITH x AS (SELECT 1) DELETE FROM ZPERSON", "/* read */ DELETE FROM ZPERSON", "SELECT 1; DELETE FROM ZPERSON",
            "COMMIT; DELETE FROM ZPERSON", "SELECT 1; SELECT 2",
            "CREATE TABLE t(x)", "CREATE TEMP TABLE t(x)", "CREATE TEMP VIEW v AS SELECT 1", "DROP TABLE ZPERSON",
            "ALTER TABLE ZPERSON ADD COLUMN x", "VACUUM", "VACUUM INTO '\(folder)/copy.sqlite'", "REINDEX", "ANALYZE",
            "INSERT INTO ZPERSON(Z_PK) VALUES (999)", "UPDATE ZPERSON SET ZAGE = 1", "REPLACE INTO ZPERSON(Z_PK) VALUES (1)",
            "UPDATE sqlite_master SET sql = 'x'", "DELETE FROM sqlite_master",
            "SELECT load_extension('/lib/x.so')", "SELECT readfile('/etc/passwd')", "SELECT writefile('\(folder)/x', 'y')",
            "SELECT cdi_check(1)", "SELECT sqlite_compileoption_used('X') FROM ZPERSON WHERE Z_PK IN (SELECT Z_PK FROM ZPERSON)",
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r",
            "WITH RECURSIVE r(s) AS (SELECT 'ab' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r",
            "SELECT randomblob(100000000)", "SELECT zeroblob(2000000000)",
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 20000000) SELECT group_concat(randomblob(50)) FROM r",
        ]
    }

    func testHostileStatementsAreRefusedOneShotAndInASession() throws {
        let folder = (store as NSString).deletingLastPathComponent
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: folder + "/other.sqlite"))
        // A one-shot read of a store no process has open reads it in place (man cdinspect,
        // SAFETY): it creates nothing.
        let untouched = try Self.listing(folder)
        XCTAssertEqual(try CLI.run(["count", store, "Person"]).stdout, "50\n")
        XCTAssertEqual(try Self.listing(folder), untouched)
        let before = untouched
        for sql in Self.hostileStatements(folder) {
            // Each stops at its one-second limit; the 120 s guard only catches a hang.
            let r = try CLI.run(["sql", store, sql, "--timeout", "1"], timeout: 120)
            XCTAssertEqual(r.status, 1, "\(sql): \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("cdinspect: error: ") && r.stderr.split(separator: "\n").count == 1, "\(sql): \(r.stderr)")
        }
        XCTAssertEqual(try Self.listing(folder), before, "files created or changed")

        // A session goes on after each refusal, and reads as before: nothing persisted. It
        // opens the store through SQLite, which makes an empty -wal beside it first.
        XCTAssertEqual(try CLI.run([store, "-c", "count Person"]).stdout, "50\n")
        let beforeSession = try Self.listing(folder)
        XCTAssertEqual(beforeSession.keys.sorted(), (before.keys + ["People.sqlite-wal"]).sorted())
        let script = Self.hostileStatements(folder).map { "sql \($0)" } + ["sql SELECT count(*) AS n FROM ZPERSON"]
        let r = try CLI.run([store, "--keep-going", "--format", "csv"], stdin: script.joined(separator: "\n") + "\n")
        XCTAssertEqual(r.status, 1, r.stderr)
        // A statement stopped by a limit has printed the rows it made before it.
        XCTAssertTrue(r.stdout.hasSuffix("\nn\n50\n"), r.stdout.suffix(200) + r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, Self.hostileStatements(folder).count, r.stderr)
        XCTAssertEqual(try Self.listing(folder), beforeSession, "files created or changed")
        // Reporting pragmas and eponymous tables still read.
        let reads = try CLI.run(["sql", store, "SELECT name FROM pragma_table_info('ZPERSON') WHERE name = 'ZAGE'", "--format", "csv"])
        XCTAssertEqual(reads.stdout, "name\nZAGE\n", reads.stderr)
        XCTAssertEqual(try CLI.run(["sql", store, "PRAGMA journal_mode", "--format", "csv"]).stdout, "journal_mode\nwal\n")
    }

    /// Every file in the folder with its bytes; the -shm is left out, since every reader of
    /// a WAL store writes its read marks there.
    static func listing(_ folder: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasSuffix("-shm") {
            result[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return result
    }
}

/// A predicate a prompt makes huge: 40,000 `OR`s. Compiled linearly (equality tests on one
/// attribute become one `IN` list; what stays long is kept from SQLite's pairwise `OR`
/// analysis), so it answers like its short form; docs/stores-are-user-input.md gives the time.
final class LongPredicateTests: ExampleStoreTestCase {
    func testFortyThousandOrsGiveTheSameAnswerAsTheirSQL() throws {
        let equalities = (100..<40_099).map { "age == \($0)" } + ["name == \"dave3\""]
        let ranges = (0..<13_000).map { "score > \(1_000_000 + $0)" }
        for (terms, sql) in [(equalities, "SELECT count(*) FROM ZPERSON WHERE ZAGE >= 100 OR ZNAME = 'dave3'"),
                             (equalities + ranges, "SELECT count(*) FROM ZPERSON WHERE ZAGE >= 100 OR ZNAME = 'dave3' OR ZSCORE > 1000000")] {
            let predicate = terms.joined(separator: " OR ")
            let r = try CLI.run([store], stdin: "count Person --where '\(predicate)'\nexplain Person --where '\(predicate)'\n")
            XCTAssertEqual(r.status, 0, r.stderr)
            let lines = r.stdout.split(separator: "\n")
            XCTAssertEqual(lines.first.map(String.init), try SQLiteShell.read(store, sql))
            XCTAssertTrue(r.stdout.contains("t0.ZAGE IN (?, ?, ?"), String(r.stdout.prefix(300)))
        }
        // A short chain keeps the SQL Core Data writes.
        let short = try CLI.run(["explain", store, "Person", "--where", "age == 1 OR age == 2"]).stdout
        XCTAssertTrue(short.contains("t0.ZAGE = ?") && !short.contains(" IN ("), short)
    }
}

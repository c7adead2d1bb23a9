import Foundation
import XCTest

/// Stores whose Core Data tables hold values of the wrong SQLite type (everywhere SQLite allows
/// one: `Z_PRIMARYKEY.Z_ENT`, an INTEGER PRIMARY KEY, cannot hold text), as a hand-edited or
/// damaged store can: every reading command still answers (or fails with one line), never
/// with a crash, and saving refuses rather than reuse primary keys.
final class DamagedValueTests: ExampleStoreTestCase {
    static let damage = [
        "UPDATE Z_PRIMARYKEY SET Z_MAX = 'abc'",
        "UPDATE Z_PRIMARYKEY SET Z_NAME = x'0102' WHERE Z_NAME = 'Tag'",
        "UPDATE Z_PRIMARYKEY SET Z_SUPER = 2.5",
        "UPDATE Z_METADATA SET Z_PLIST = 42",
        "UPDATE Z_METADATA SET Z_UUID = x'00ff'",
        "UPDATE ZPERSON SET ZAGE = 'old', ZBALANCE = x'01', ZNAME = 7 WHERE Z_PK = 1",
        "UPDATE ZPERSON SET Z_ENT = 'three' WHERE Z_PK = 2",
        // Parents that loop, read from the schema once the cache is gone.
        "UPDATE Z_PRIMARYKEY SET Z_SUPER = Z_ENT; DROP TABLE Z_MODELCACHE",
        "UPDATE Z_PRIMARYKEY SET Z_SUPER = 2 WHERE Z_ENT = 1; DROP TABLE Z_MODELCACHE",
    ]

    func testEveryCommandReadsAWronglyTypedValue() throws {
        let pristine = try XCTUnwrap(FileManager.default.contents(atPath: store))
        var commandsRun = 0
        for sql in Self.damage {
            let store: String = self.store
            try pristine.write(to: URL(fileURLWithPath: store))
            try SQLiteShell.run(store, sql)
            for arguments: [String] in [["info", store], ["entities", store], ["schema", store], ["count", store, "Person"],
                              ["fetch", store, "Person", "--limit", "3"], ["fetch", store, "Person", "--format", "json"],
                              ["count", store, "Person", "--where", "age > 3 AND name BEGINSWITH 'd'"],
                              [store, "-c", "fetch Tag", "-c", "fetch Car --where 'owner.age > 3'"]] {
                let result = try CLI.run(arguments)
                commandsRun += 1
                let what = "\(sql): \(arguments.dropFirst().joined(separator: " "))"
                XCTAssertTrue([0, 1].contains(result.status), "\(what) ended with status \(result.status): \(result.stderr)")
                // One error line (a predicate's shown under its caret), no crash.
                XCTAssertEqual(HostileFindings.problems(in: result, commands: 1), [], "\(what): \(result.stderr)")
            }
        }
        XCTAssertEqual(commandsRun, Self.damage.count * 8)
    }

    /// A model whose parent entities loop (hand-edited XML; the same check guards the cache)
    /// is refused in one line instead of recursing until the stack runs out, by every command
    /// that reads a model: one judgment of what Core Data would load.
    func testAModelWhoseParentsLoopIsRefused() throws {
        let contents = Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld/People.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8)
            .replacingOccurrences(of: "<entity name=\"Car\" representedClassName=\"Car\"",
                                  with: "<entity name=\"Car\" representedClassName=\"Car\" parentEntity=\"SportsCar\"")
        let model = folder.appendingPathComponent("Loop.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try xml.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let created = folder.appendingPathComponent("new.sqlite").path
        for arguments in [["count", store!, "Person", "--model", model.path], [store!, "--model", model.path, "-c", "entities"],
                          ["model", store!, "diff", model.path], ["doctor", store!, "--model", model.path], ["create", created, "--model", model.path]] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.stdout)")
            XCTAssertTrue(result.stderr.hasPrefix("cdinspect: error: ") && result.stderr.hasSuffix("the parent entities form a loop: Car → SportsCar → Car\n")
                          && result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: created))
    }

    func testAPrimaryKeyCounterThatIsNotAnIntegerStopsASave() throws {
        try SQLiteShell.run(store, "UPDATE Z_PRIMARYKEY SET Z_MAX = 'abc' WHERE Z_NAME = 'Tag'")
        let result = try CLI.run([store, "-c", "insert Tag name=x", "-c", "save"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cdinspect: error: Z_PRIMARYKEY's Z_MAX for Tag is \"abc\", not an integer: "
                       + "new Tag objects cannot be given primary keys\n")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZTAG"), "4")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'"), "abc")
    }
}

/// Predicates nested far past any real one: an error with the column, from the subcommand
/// and from a session with unsaved objects (whose predicate the evaluator walks too).
final class DeepPredicateTests: ExampleStoreTestCase {
    func testADeeplyNestedPredicateIsAnErrorNotACrash() throws {
        let deep = String(repeating: "(", count: 20_000) + "age > 3" + String(repeating: ")", count: 20_000)
        let expected = "cdinspect: error: predicate error at column 257: the predicate is nested more than 256 levels deep"
        let oneShot = try CLI.run(["count", store, "Person", "--where", deep])
        XCTAssertEqual(oneShot.status, 1)
        XCTAssertTrue(oneShot.stderr.hasPrefix(expected), String(oneShot.stderr.prefix(300)))

        let nots = String(repeating: "NOT ", count: 20_000) + "age > 3"
        let script = "insert Person name=\"zz\" age=5 id=00000000-0000-4000-8000-00000000aaaa\n"
            + "count Person --where '\(nots)'\ncount Person --where 'age > 3'\n"
        let session = try CLI.run([store, "--keep-going"], stdin: script)
        XCTAssertEqual(session.status, 1)
        XCTAssertTrue(session.stderr.hasPrefix("cdinspect: error: line 2: predicate error at column 1025: the predicate is nested"),
                      String(session.stderr.prefix(300)))
        XCTAssertTrue(session.stdout.hasSuffix("51\n"), "the session goes on: \(session.stdout.suffix(200))")
    }
}

/// `[c]`/`[d]` string comparisons fold the predicate's side once per statement, and a side
/// that changes from row to row (another key path) is folded afresh for each row.
final class FoldedPatternTests: ExampleStoreTestCase {
    func testLongPatternsAndPerRowPatterns() throws {
        let accented = String(repeating: "á", count: 1000)
        try SQLiteShell.run(store, """
            INSERT INTO ZPERSON(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) VALUES (1000, 3, 1, '\(accented)', 30);
            UPDATE Z_PRIMARYKEY SET Z_MAX = 1000 WHERE Z_NAME = 'Person';
            """)
        let plain = String(repeating: "A", count: 1000)
        var script = ""
        for predicate in ["name ==[cd] \"\(plain)\"", "name LIKE[cd] \"a*\(plain.prefix(10))\"", "name CONTAINS[d] \"\(plain.lowercased().prefix(500))\"",
                          "name BEGINSWITH[cd] \"\(plain.prefix(999))\"", "name ENDSWITH[d] \"\(plain.lowercased().prefix(1))\"",
                          "name ==[c] \"\(plain)\"", "homepage CONTAINS[c] name", "homepage ENDSWITH[cd] name",
                          "name LIKE[cd] \"\(String(repeating: "x", count: 300_000))\""] {
            script += "count Person --where '\(predicate)'\n"
        }
        let result = try CLI.run([store], stdin: script)
        XCTAssertEqual(result.status, 0, result.stderr)
        // The accented name folds to the plain one under [d] only. Each of the ten homepages
        // ends in its own person's name: a needle kept from the first row would match one.
        XCTAssertEqual(result.stdout.split(separator: "\n"), ["1", "1", "1", "1", "1", "0", "10", "10", "0"])
    }
}

/// Scripts as other tools and other systems write them, and the small inputs that used to
/// slip through: each runs as written or fails with one line.
final class InputHygieneTests: ExampleStoreTestCase {
    /// A bad count says why, outside the quoted value; a negative one is refused for being
    /// negative, not mistaken for an option.
    func testABadCountSaysWhy() throws {
        for (value, reason) in [("abc", "not a whole number"), ("-3", "a count cannot be negative"),
                                ("99999999999999999999", "too large a number")] {
            let oneShot = try CLI.run(["fetch", store, "Person", "--limit", value])
            XCTAssertEqual(oneShot.status, 64)
            XCTAssertTrue(oneShot.stderr.hasPrefix("cdinspect: error: The value '\(value)' is invalid for '--limit <limit>': \(reason)\n"),
                          oneShot.stderr)
            let session = try CLI.run([store, "-c", "fetch Person --offset \(value)"])
            XCTAssertEqual(session.status, 64)
            XCTAssertTrue(session.stderr.hasSuffix(": \(reason)\n"), session.stderr)
        }
    }

    func testAWindowsScriptRunsAsWritten() throws {
        let result = try CLI.run([store], stdin: "\u{FEFF}count Person\r\ncount Tag \\\r\n  --where \"name != nil\"\r\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "50\n4\n")
    }

    func testANulByteIsAnErrorNamingTheLine() throws {
        let result = try CLI.run([store, "--keep-going"], stdin: "count Person\ncount \u{0}Tag\ncount Tag\n")
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cdinspect: error: line 2: the line holds a NUL byte, which no command takes\n")
        XCTAssertEqual(result.stdout, "50\n4\n")
    }

    func testReadingAFolderIsAnError() throws {
        let result = try CLI.run([store, "-c", "read \(folder.path)"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cdinspect: error: cannot read \(folder.path): it is a directory, not a script\n")
    }

    func testLimitZeroMeansNoLimit() throws {
        let result = try CLI.run(["fetch", store, "Person", "--limit", "0", "--as", "ids"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 50 + 2, "all 50, under a two-line header")
    }

    func testAContextNeedsAName() throws {
        for name in ["''", "'  '"] {
            let result = try CLI.run([store, "-c", "context new \(name)"])
            XCTAssertEqual(result.status, 64)
            XCTAssertEqual(result.stderr, "cdinspect: error: a context needs a name that is not empty or blank\n")
        }
    }
}

/// A subcommand and the same command in a session: the same context errors, and no
/// switch that would silently do nothing.
final class OneShotContextTests: ExampleStoreTestCase {
    func testContextSwitchesInASubcommand() throws {
        let session = try CLI.run([store, "-c", "count Person --context nosuch"])
        for command in ["fetch", "count"] {
            let oneShot = try CLI.run([command, store, "Person", "--context", "nosuch"])
            XCTAssertEqual(oneShot.status, 1)
            XCTAssertEqual(oneShot.stderr, session.stderr)
            XCTAssertEqual(try CLI.run([command, store, "Person", "--context", "background"]).status, 0)
            for flag in ["--no-faults", "--refresh", "--no-pending"] {
                let refused = try CLI.run([command, store, "Person", flag])
                XCTAssertEqual(refused.status, 64, "\(command) \(flag)")
                XCTAssertTrue(refused.stderr.hasPrefix("cdinspect: error: \(flag) changes a fetch only in a session"), refused.stderr)
            }
        }
        XCTAssertEqual(session.stderr, "cdinspect: error: no context named 'nosuch' (see 'context list')\n")
        XCTAssertEqual(try CLI.run([store, "-c", "fetch Person --refresh --no-faults --no-pending --limit 1"]).status, 0)
    }
}

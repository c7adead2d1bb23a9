import Foundation
import XCTest

/// The command-line contract: the three ways to run a command print the same thing, and
/// usage errors, failures and success exit 64, 1 and 0.
final class CommandLineTests: XCTestCase {
    var store: URL!

    override func setUpWithError() throws {
        store = try Fixtures.exampleStore(in: try Fixtures.temporaryDirectory(self))
    }

    /// A misspelt command, subcommand or entity is named with the nearest right one, as git
    /// does; a one-shot command misspelt is not taken for the store.
    func testMisspeltCommandsSuggestTheNearestOne() throws {
        for (arguments, message) in [
            (["fetchh", store.path, "Person"], "unknown command 'fetchh' (did you mean 'fetch'?)"),
            ([store.path, "-c", "contxt list"], "unknown command 'contxt' (did you mean 'context'?)"),
            ([store.path, "-c", "context create bg"], "unknown context command 'create' (context commands: new, use, list, drop, set)"),
            ([store.path, "-c", "context lst"], "unknown context command 'lst' (context commands: new, use, list, drop, set; did you mean 'list'?)"),
            ([store.path, "-c", "frobnicate"], "unknown command 'frobnicate' (try 'help')"),
            // A view before the store: the order said back with the user's own words.
            (["model", "export", store.path, "out dir", "--swift"], "the store comes before 'export': cdinspect model \(store.path) export 'out dir' --swift"),
            (["cloudkit", "zones", store.path], "the store comes before 'zones': cdinspect cloudkit \(store.path) zones"),
            (["history", "purge", "--before", "x"], "the store comes before 'purge': cdinspect history STORE purge"),
        ] {
            let r = try CLI.run(arguments)
            XCTAssertEqual(r.status, 64, "\(arguments)")
            XCTAssertEqual(r.stderr, "cdinspect: error: \(message)\n", "\(arguments)")
            XCTAssertEqual(r.stdout, "")
        }
    }

    func testSubcommandDashCAndScriptPrintTheSame() throws {
        // A session opens the store through SQLite, which creates the empty -wal and the -shm
        // beside a store that has none; a one-shot read creates nothing (man cdinspect, SAFETY),
        // and `info` says which by its walSize. The store is compared once both are there.
        XCTAssertEqual(try CLI.run([store.path, "-c", "count Person"]).stdout, "50\n")
        for words in [["info"], ["entities"], ["schema"], ["schema", "Person"], ["entities", "--format", "json"],
                      ["schema", "Car", "--format", "csv"], ["info", "--format", "line"],
                      ["fetch", "Person", "--where", "age > 60", "--sort", "name", "--keys", "name,age", "--format", "csv"],
                      ["fetch", "Car", "--limit", "3", "--format", "json"],
                      ["fetch", "Person", "--as", "dicts", "--keys", "name,age", "--limit", "2", "--format", "line"],
                      ["count", "Person", "--where", "ANY cars.year < 2000"],
                      ["explain", "Person", "--where", "name BEGINSWITH[c] \"D\" AND age > 30"]] {
            var subcommand = words
            subcommand.insert(store.path, at: 1)
            let a = try CLI.run(subcommand)
            let line = words.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
            let b = try CLI.run([store.path, "-c", line])
            let c = try CLI.run([store.path], stdin: line + "\n")
            XCTAssertEqual(a.status, 0, a.stderr)
            XCTAssertFalse(a.stdout.isEmpty)
            XCTAssertEqual(a.stdout, b.stdout, line)
            XCTAssertEqual(a.stdout, c.stdout, line)
        }
    }

    /// `where` on a shell's command line reads as in a session: the predicate is the words
    /// after it, and options may follow it.
    func testWhereReadsTheSameOnAShellCommandLine() throws {
        for words in [["fetch", "Person", "where", "age > 60", "--keys", "name,age", "--limit", "3"],
                      ["count", "Person", "where", "age", ">", "60"],
                      ["explain", "Person", "where", "name BEGINSWITH[c] \"D\"", "--plan"]] {
            var subcommand = words
            subcommand.insert(store.path, at: 1)
            let a = try CLI.run(subcommand)
            // The session line as a person types it: the predicate unquoted after `where`.
            let line = words.joined(separator: " ")
            let b = try CLI.run([store.path, "-c", line])
            XCTAssertEqual(a.status, 0, a.stderr)
            XCTAssertEqual(b.status, 0, b.stderr)
            XCTAssertFalse(a.stdout.isEmpty)
            XCTAssertEqual(a.stdout, b.stdout, line)
        }
        let limited = try CLI.run(["fetch", store.path, "Person", "where", "age > 0", "--limit", "3", "--format", "json"])
        XCTAssertEqual(limited.stdout.components(separatedBy: "\"objectID\"").count - 1, 3, limited.stdout)
    }

    /// The web view's options are checked before any server starts, and said in one line.
    func testBrowseRefusesOptionsThatCannotWork() throws {
        for (arguments, message) in [
            (["--port", "99999"], "--port takes a port number from 0 (a free one) to 65535"),
            (["--write", "--immutable"], "--write and --immutable: an immutable store cannot be written"),
            (["--write", "--readonly"], "--write and --readonly: a read-only web view offers no edits"),
        ] {
            let r = try CLI.run(["browse", store.path] + arguments)
            XCTAssertEqual(r.status, 64, "\(arguments)")
            XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init), "cdinspect: error: \(message)", "\(arguments)")
            XCTAssertEqual(r.stdout, "")
        }
    }

    /// `--readonly`, as every command takes it: the web view serves its pages and offers no edit.
    func testBrowseTakesReadonlyAsEveryCommandDoes() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let copy = try Fixtures.exampleStore(in: folder).path
        let server = try BrowseServer(copy, ["--readonly"])
        defer { server.stop() }
        let cookie = "Host: 127.0.0.1:\(server.port)\r\nCookie: cdinspect-browse-\(server.port)=\(server.token)\r\nConnection: close\r\n"
        let page = server.raw(Array("GET /Person HTTP/1.1\r\n\(cookie)\r\n".utf8))
        XCTAssertEqual(page.status, 200, page.response)
        XCTAssertTrue(page.response.contains("dave0"), String(page.response.prefix(300)))
        XCTAssertFalse(page.response.contains("/-/save"), "a read-only web view offers no Save")
    }

    /// Commands that write: each form on its own copy of the store, same output, same store.
    func testBatchRequestsPrintTheSameInEveryForm() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        for words in [["batch-update", "Person", "--set", "age=age+1", "--where", "age > 60", "--result", "count"],
                      ["batch-delete", "Car", "--where", "year < 2000", "--result", "ids", "--format", "csv"]] {
            var outputs: [String] = []
            var stores: [String] = []
            for form in 0..<3 {
                let copy = folder.appendingPathComponent("\(words[0])-\(form).sqlite").path
                try FileManager.default.copyItem(atPath: store.path, toPath: copy)
                let line = words.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
                let result: CLI.Result
                switch form {
                case 0: result = try CLI.run([words[0], copy] + words.dropFirst())
                case 1: result = try CLI.run([copy, "-c", line])
                default: result = try CLI.run([copy], stdin: line + "\n")
                }
                XCTAssertEqual(result.status, 0, result.stderr)
                outputs.append(result.stdout)
                stores.append(try SQLiteShell.read(copy, "SELECT group_concat(Z_PK || ':' || Z_OPT || ':' || ZAGE) FROM ZPERSON;"
                                                   + " SELECT count(*) FROM ZCAR"))
            }
            XCTAssertFalse(outputs[0].isEmpty)
            XCTAssertEqual(Set(outputs).count, 1, "\(words[0]): \(outputs)")
            XCTAssertEqual(Set(stores).count, 1, words[0])
        }
    }

    func testExampleStoreShapes() throws {
        let entities = try XCTUnwrap(CLI.json(["entities", store.path, "--format", "json"]) as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: entities.map { ($0["name"] as! String, $0) })
        XCTAssertEqual(byName["Person"]?["count"] as? Int, 50)
        XCTAssertEqual(byName["Car"]?["count"] as? Int, 50)
        XCTAssertEqual((byName["SportsCar"]?["count"] as? Int).map { $0 > 0 && $0 < 50 }, true)
        XCTAssertEqual(byName["SportsCar"]?["parent"] as? String, "Car")
        let info = try XCTUnwrap(CLI.json(["info", store.path, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(info["model"] as? String, "Z_MODELCACHE")
        XCTAssertEqual(info["journalMode"] as? String, "wal")
        let person = try XCTUnwrap(CLI.json(["schema", store.path, "Person", "--format", "json"]) as? [String: Any])
        let tags = try XCTUnwrap((person["relationships"] as! [[String: Any]]).first { $0["name"] as? String == "tags" })
        XCTAssertEqual((tags["storage"] as! [String: Any])["kind"] as? String, "joinTable")
    }

    func testUnknownEntityFailsWithSuggestion() throws {
        let result = try CLI.run(["schema", store.path, "Persn"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cdinspect: error: unknown entity 'Persn' (did you mean 'Person'?)\n")
    }

    func testUsageErrorsExit64() throws {
        for arguments in [["info"], ["entities", store.path, "--format", "xml"], ["schema", store.path, "--bogus"],
                          [store.path, "--sql-debug", "9"]] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cdinspect: error: "), result.stderr)
            // One error line, at most a usage line after it; no doubled "Error:".
            let lines = result.stderr.split(separator: "\n")
            XCTAssertLessThanOrEqual(lines.count, 2, result.stderr)
            XCTAssertTrue(lines.dropFirst().allSatisfy { $0.hasPrefix("Usage: cdinspect") }, result.stderr)
            XCTAssertFalse(result.stderr.contains("Error:"), result.stderr)
        }
        let unknown = try CLI.run([store.path, "-c", "frobnicate"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("unknown command 'frobnicate'"), unknown.stderr)
    }

    /// Colour is for terminals: a pipe gets none, even without NO_COLOR (the REPL test
    /// checks a terminal with and without it).
    func testNoColourOnAPipe() throws {
        let result = try CLI.run([store.path, "-c", "entities", "-c", "schema Nope"], environment: ["NO_COLOR": ""])
        XCTAssertTrue(result.stdout.hasPrefix("name "), result.stdout)
        XCTAssertFalse(result.stdout.contains("\u{1B}") || result.stderr.contains("\u{1B}"))
        XCTAssertTrue(result.stderr.hasPrefix("cdinspect: error: "), result.stderr)
    }

    func testCoreDataDebugSpellingIsAccepted() throws {
        let result = try CLI.run(["info", store.path, "-com.apple.CoreData.SQLDebug", "1"])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testScriptStopsAtFirstErrorWithLineNumber() throws {
        let script = "# a comment\ninfo --format json\n\nschema Nope\nentities\n"
        let result = try CLI.run([store.path], stdin: script)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, "cdinspect: error: line 4: unknown entity 'Nope'\n")
        XCTAssertFalse(result.stdout.contains("entityID"), "stopped before 'entities'")
        let going = try CLI.run([store.path, "--keep-going"], stdin: script)
        XCTAssertEqual(going.status, 1)
        XCTAssertTrue(going.stdout.contains("entityID"))
    }

    func testContinuationLinesAndHelp() throws {
        let result = try CLI.run([store.path], stdin: "schema \\\n  Person --format \\\n json\nhelp\nhelp schema\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("\"name\": \"Person\""))
        XCTAssertTrue(result.stdout.contains("Commands (help COMMAND for details):"))
        XCTAssertTrue(result.stdout.contains("USAGE: schema [<entity>]"), result.stdout)
    }

    /// `COMMAND --help` in a session prints that command's help, subcommands included.
    func testHelpOptionInASession() throws {
        let result = try CLI.run([store.path], stdin: "fetch --help\ncontext new --help\ncontext help set\ncontext\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("USAGE: fetch [<options>] <entity>"), result.stdout)
        XCTAssertTrue(result.stdout.contains("USAGE: context new <name> [--parent <context>]"), result.stdout)
        XCTAssertTrue(result.stdout.contains("USAGE: context set [--context <name>] <setting> <value>"), result.stdout)
        XCTAssertTrue(result.stdout.contains("name        parent  current  pin"), "bare 'context' lists: \(result.stdout)")
    }

    func testPlainSQLiteFileOpens() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let path = folder.appendingPathComponent("plain.db").path
        try SQLiteShell.run(path, """
            CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT, author_id INTEGER REFERENCES author(id));
            INSERT INTO author VALUES (1, 'Ann'); INSERT INTO book VALUES (1, 'B', 1), (2, 'C', 1);
            """)
        let entities = try XCTUnwrap(CLI.json(["entities", path, "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(entities.map { $0["name"] as! String }, ["author", "book"])
        XCTAssertEqual(entities.map { $0["count"] as! Int }, [1, 2])
        let book = try XCTUnwrap(CLI.json(["schema", path, "book", "--format", "json"]) as? [String: Any])
        let relationship = try XCTUnwrap((book["relationships"] as! [[String: Any]]).first)
        XCTAssertEqual(relationship["destination"] as? String, "author")
        XCTAssertEqual(relationship["name"] as? String, "author_id")
    }
}

/// `read FILE` and `timer on` in a session.
final class SessionBuiltinTests: XCTestCase {
    func testReadRunsAScriptAndNamesTheFileAndLineOfAFailure() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 5).path
        let good = folder.appendingPathComponent("good.cdi").path
        let bad = folder.appendingPathComponent("bad.cdi").path
        let again = folder.appendingPathComponent("again.cdi").path
        try "# counts\ncount Person\ncount \\\n  Tag\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "count Person\n\nschema Nope\ncount Tag\n".write(toFile: bad, atomically: true, encoding: .utf8)
        try "read \(again)\n".write(toFile: again, atomically: true, encoding: .utf8)

        var r = try CLI.run([store], stdin: "read \(good)\ncount Car\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "5\n4\n5\n")
        r = try CLI.run([store], stdin: "count Car\nread \(bad)\ncount Car\n")
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "5\n5\n", "the session stops at the failing read")
        XCTAssertEqual(r.stderr, "cdinspect: error: line 2: \(bad) line 3: unknown entity 'Nope'\n")
        r = try CLI.run([store, "-c", "read \(folder.path)/missing.cdi"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("cannot read \(folder.path)/missing.cdi: No such file or directory"), r.stderr)
        r = try CLI.run([store, "-c", "read \(again)"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("\(again) is already being read (a script cannot read itself)"), r.stderr)
    }

    func testTimerPrintsEachCommandsRunTime() throws {
        let store = try Fixtures.exampleStore(in: try Fixtures.temporaryDirectory(self), people: 5).path
        let r = try CLI.run([store], stdin: "count Person\ntimer on\ncount Person\ntimer off\ncount Person\ntimer maybe\n")
        XCTAssertEqual(r.status, 64)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 4, r.stdout)
        XCTAssertEqual(Array(lines[0...1]), ["5", "5"])
        XCTAssertTrue(lines[2].hasPrefix("Run Time: real 0."), r.stdout)
        XCTAssertEqual(lines[3], "5")
        XCTAssertTrue(r.stderr.contains("line 6: usage: timer on|off"), r.stderr)
    }
}

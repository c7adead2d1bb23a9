import Foundation
import XCTest

/// The hostile-input suite's inputs that are not stores: predicates nested deep, predicates
/// huge, and command lines wrong in every way a hand can make them, each as a subcommand and
/// as the same command in a session. None may crash, hang, or say more than one error line,
/// and none may change the store.
final class HostileCommandLineTests: ExampleStoreTestCase {
    /// Predicates far past any real one: nesting by every construct that nests, lists and
    /// chains tens of thousands long, literals a hundred thousand characters long, and the
    /// odd ones (unbalanced, wrong escapes, numbers past any type).
    static var predicates: [(entity: String, predicate: String)] {
        let deep = 20_000
        var list: [(String, String)] = [
            ("Person", String(repeating: "(", count: deep) + "age > 3" + String(repeating: ")", count: deep)),
            ("Person", String(repeating: "NOT ", count: deep) + "age > 3"),
            ("Person", String(repeating: "!", count: deep) + "(age > 3)"),
            ("Person", "age IN " + String(repeating: "{", count: deep) + "1" + String(repeating: "}", count: deep)),
            ("Car", Array(repeating: "owner", count: 5000).joined(separator: ".") + ".age > 3"),
            ("Person", String(repeating: "SUBQUERY(cars, $c, ", count: 400) + "TRUEPREDICATE" + String(repeating: ").@count > 0", count: 400)),
            ("Person", "age == " + String(repeating: "-", count: deep) + "1"),
            ("Person", "age == " + Array(repeating: "1", count: deep).joined(separator: "+")),
            ("Person", "age == " + String(repeating: "FUNCTION(", count: 500) + "1"),
            ("Person", (0..<3000).map { "age == \($0)" }.joined(separator: " OR ")),
            ("Person", (0..<3000).map { "name != 'n\($0)'" }.joined(separator: " AND ")),
            ("Person", "age IN {" + (0..<10_000).map(String.init).joined(separator: ",") + "}"),
            ("Person", "name == \"" + String(repeating: "x", count: 100_000) + "\""),
            ("Person", "name LIKE[cd] \"" + String(repeating: "á*", count: 30_000) + "\""),
            ("Person", "name CONTAINS[cd] \"" + String(repeating: "ß", count: 50_000) + "\""),
            ("Person", "name MATCHES \"" + String(repeating: "(a|b)*", count: 2000) + "c\""),
            ("Person", "name MATCHES \"(((\""),
            ("Person", "age > 1e999999"),
            ("Person", "age > 99999999999999999999999999999999"),
            ("Person", "age > -0x8000000000000001"),
            ("Person", "name == \"\\u{d800}\" OR name == \"\\xZZ\" OR name == \"\\"),
            ("Person", "name == 'unterminated"),
            ("Person", "age > 3)"),
            ("Person", "((age > 3)"),
            ("Person", "%@ == %@ AND %K > %d"),
            ("Person", "$UNDEFINED > 3"),
            ("Person", "ANY ANY ANY cars.year > 3"),
            ("Person", "cars.@sum.@avg.@count.year > 3"),
            ("Person", "birthday > CAST(1e300, \"NSDate\")"),
            ("Person", "age BETWEEN {1}"),
            ("Person", "\u{FEFF}age > 3\u{200B}"),
            ("Person", ""),
            ("Person", String(repeating: " ", count: 10_000)),
        ]
        list.append(("Tag", "SUBQUERY(people, $p, SUBQUERY($p.cars, $c, $c.owner.tags.@count > 0).@count > 0).@count > 0"))
        return list
    }

    /// The checker itself: it must flag what the suite exists to catch.
    func testTheCheckerFlagsCrashesStrayLinesAndMissingErrors() {
        func problems(_ status: Int32, _ stderr: String, signaled: Bool = false, commands: Int = 1) -> [String] {
            HostileFindings.problems(in: CLI.Result(status: status, stdout: "", stderr: stderr, signaled: signaled), commands: commands)
        }
        XCTAssertEqual(problems(1, "cdinspect: error: no such file: x\n"), [])
        XCTAssertEqual(problems(1, "cdinspect: error: predicate syntax error at column 7: unterminated string\n  age > \"x\n        ^\n"), [])
        XCTAssertEqual(problems(64, "cdinspect: error: Missing expected argument '<store>'\nUsage: cdinspect count <store>\n"), [])
        XCTAssertEqual(problems(0, "cdinspect: warning: the store has no Z_METADATA row\n"), [])
        XCTAssertEqual(problems(1, "cdinspect: error: line 1: a\ncdinspect: error: line 2: b\n", commands: 2), [])
        XCTAssertFalse(problems(4, "*** Signal 4: Backtracing ***\n", signaled: true).isEmpty, "a crash")
        XCTAssertFalse(problems(2, "cdinspect: error: x\n").isEmpty, "an exit status outside 0, 1, 64, 130")
        XCTAssertFalse(problems(1, "cdinspect: error: validation failed:\n  Car: plate is required\n").isEmpty, "a second line")
        XCTAssertFalse(problems(1, "").isEmpty, "a failure that says nothing")
        XCTAssertFalse(problems(0, "cdinspect: error: x\n").isEmpty, "an error with exit status 0")
        XCTAssertFalse(problems(1, "cdinspect: error: a\ncdinspect: error: b\n").isEmpty, "two errors from one command")
        XCTAssertFalse(problems(0, "Fatal error: Unexpectedly found nil\n").isEmpty, "a trap's message")
    }

    func testDeepAndHugePredicates() throws {
        let findings = HostileFindings()
        let before = storeBytes(store)
        let store: String = self.store
        let cases = Self.predicates
        forEachConcurrently(Array(cases.indices)) { i in
            let (entity, predicate) = cases[i]
            findings.input()
            let what = "predicate \(i) (\(predicate.prefix(60))…)"
            for command in ["count", "fetch", "explain"] {
                findings.run([command, store, entity, "--where", predicate, "--limit", "3"], "\(what): \(command)")
            }
            // A session reads it from a script line, and with an unsaved object in the
            // context, so the in-memory evaluator walks the predicate too.
            let script = "insert Person name=pending age=5 id=00000000-0000-4000-8000-00000000aaaa\n"
                + sessionLine(["count", entity, "--where", predicate]) + "\n"
                + sessionLine(["fetch", entity, "--where", predicate, "--limit", "3"]) + "\n"
            findings.run([store, "--keep-going"], stdin: script, commands: 3, "\(what): session")
        }
        XCTAssertEqual(storeBytes(store), before, "a predicate changed the store")
        print("hostile suite, predicates: \(findings.inputsTried) predicates, \(findings.commandsRun) commands")
        findings.assertNone()
    }

    /// Options and arguments wrong in kind, range, number and spelling, as a subcommand and
    /// the same words in a session; and session-only commands given nonsense.
    func testBadCommandLines() throws {
        let store: String = self.store
        let textFile = folder.appendingPathComponent("notes.txt").path
        try "not a store\n".write(toFile: textFile, atomically: true, encoding: .utf8)
        let commandsAndArguments: [[String]] = [
            ["fetch"], ["count"], ["fetch", "Nope"], ["fetch", "person"], ["fetch", ""], ["fetch", "Person", "extra"],
            ["fetch", "Person", "--limit", "-1"], ["fetch", "Person", "--limit", "x"], ["fetch", "Person", "--limit", "99999999999999999999"],
            ["fetch", "Person", "--offset", "-5"], ["fetch", "Person", "--offset", "9223372036854775807"],
            ["fetch", "Person", "--batch-size", "-5"], ["fetch", "Person", "--batch-size", "0"],
            ["fetch", "Person", "--format", "xml"], ["fetch", "Person", "--format", ""], ["fetch", "Person", "--sort", ""],
            ["fetch", "Person", "--sort", "nope:desc"], ["fetch", "Person", "--sort", "age:sideways"], ["fetch", "Person", "--sort", ":"],
            ["fetch", "Person", "--keys", ""], ["fetch", "Person", "--keys", "a,,b"], ["fetch", "Person", "--keys", "cars.year"],
            ["fetch", "Person", "--as", "blob"], ["fetch", "Person", "--as", "dicts", "--keys", "cars"],
            ["fetch", "Person", "--arg", "1"], ["fetch", "Person", "--where", "age > %@"], ["fetch", "Person", "--where", "age > %@", "--arg", "\"x"],
            ["fetch", "Person", "--where", "%K > 3", "--arg", "no.such.path"], ["fetch", "Person", "--var", "=1"], ["fetch", "Person", "--var", "X"],
            ["fetch", "Person", "--var", "X=", "--where", "age > $X"], ["fetch", "Person", "--where", "age > 3", "--where", "age < 2"],
            ["fetch", "Person", "--context", ""], ["fetch", "Person", "--context", "nosuch"], ["fetch", "Person", "--no-faults"],
            ["fetch", "Person", "--unknown-option"], ["fetch", "Person", "-x"], ["fetch", "Person", "--"], ["fetch", "Person", "--where"],
            ["count", "Person", "--where", "age > 3", "--format", "json", "--format", "csv"],
            ["schema", "Nope"], ["schema", "Person", "Car"], ["explain", "Person", "--where", "age >"], ["entities", "--format", "line"],
            ["info", "--format", "json", "extra"],
            ["batch-update", "Person"], ["batch-update", "Person", "--set", "age"], ["batch-update", "Person", "--set", "=1"],
            ["batch-update", "Person", "--set", "nosuch=1"], ["batch-update", "Person", "--set", "cars=nil"],
            ["batch-update", "Person", "--set", "age=1", "--set", "age=2"], ["batch-update", "Person", "--set", "age=owner.age"],
            ["batch-update", "Person", "--set", "age=1", "--result", "all"], ["batch-update", "Person", "--set", "photo=x"],
            ["batch-update", "Person", "--set", "id=nil"], ["batch-update", "Person", "--set", "birthday=\"soon\""],
            ["batch-delete", "Tag"], ["batch-delete", "Nope"], ["batch-delete", "Person", "--where", "age >"],
        ]
        let globalOptions: [[String]] = [
            ["--sql-debug", "9"], ["--sql-debug", "-1"], ["--sql-debug", "x"], ["--model", "/nonexistent/Model.xcdatamodeld"],
            ["--model", store], ["--model", textFile], ["--readonly", "--readonly"],
        ]
        let badStores = ["/nonexistent/store.sqlite", "/", "/dev/null", folder.path, textFile, ""]
        let sessionOnly = [
            "frobnicate", "fetch", "get", "get Person/p0", "get Person/p99999999999999999999", "get x-coredata://", "get Person/t1",
            "get Tag/p1 extra", "insert", "insert Nope", "insert Person =", "insert Person name", "update Person/p1",
            "update Person/p1 =", "update Person/p1 cars={Person/p1}", "update Person/p1 owner=Car/p1", "delete Nope/p1",
            "delete Tag/p1", "undo", "redo", "context", "context create ''", "context create a --parent nosuch",
            "context use nosuch", "context set merge-policy bogus", "context set staleness-interval -1", "context drop main",
            "pin nosuch", "pin", "pin", "unpin nosuch", "token nosuch", "diff a b", "diff", "merge x", "merge Person/p999",
            "read /nonexistent", "read /", "format xml", "sqldebug 9", "sqldebug x", "timer maybe", "help nosuch",
            "fetch Person --where 'age", "fetch Person --where \"age", "fetch Person \\", "refresh Nope/p1", "refresh --all extra",
            "changes extra", "registered --context nosuch", "save extra", "rollback extra", "reset --context nosuch", "quit now",
        ]
        let findings = HostileFindings()
        let before = storeBytes(store)
        forEachConcurrently(Array(commandsAndArguments.indices)) { i in
            let words = commandsAndArguments[i]
            findings.input()
            let what = words.joined(separator: " ")
            findings.run([words[0], store] + words.dropFirst(), "subcommand \(what)")
            findings.run([store, "-c", sessionLine(words)], "session \(what)")
        }
        forEachConcurrently(Array(globalOptions.indices)) { i in
            let options = globalOptions[i]
            findings.input()
            findings.run(["count", store, "Person"] + options, "subcommand count \(options)")
            findings.run([store] + options + ["-c", "count Person"], "session \(options)")
        }
        forEachConcurrently(badStores) { bad in
            findings.input()
            findings.run(["count", bad, "Person"], "subcommand on \(bad)")
            findings.run([bad, "-c", "count Person"], "session on \(bad)")
        }
        forEachConcurrently(sessionOnly) { line in
            findings.input()
            findings.run([store, "-c", line], "session \(line)")
        }
        findings.input()
        findings.run([store, "--keep-going"], stdin: sessionOnly.joined(separator: "\n") + "\n", commands: sessionOnly.count,
                     "all of them in one script")
        for nonsense in [[], ["--version", "extra"], ["--help", "--help"], ["help", "nosuch"], ["nosuch-subcommand"], ["-c"], ["--format"],
                         ["--generate-completion-script", "tcsh"], ["-"]] {
            findings.input()
            findings.run(nonsense, "cdinspect \(nonsense)")
        }
        XCTAssertEqual(storeBytes(store), before, "a refused command changed the store")
        print("hostile suite, command lines: \(findings.inputsTried) inputs, \(findings.commandsRun) commands")
        findings.assertNone()
    }
}

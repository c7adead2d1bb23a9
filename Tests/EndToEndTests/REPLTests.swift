import Foundation
import XCTest

/// The REPL in a pseudo-terminal: prompt, Tab completion of entities and key paths, the
/// prompt's pin state, Ctrl-C on a long fetch and at the prompt, Ctrl-D, and history that
/// survives a restart. What the editor echoes while completing differs between GNU readline
/// and libedit (libedit moves the cursor where readline retypes), so completions are checked
/// by the command that ran and by the line the history file kept.
final class REPLTests: XCTestCase {
    func testTheREPLAtATerminal() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 50).path
        try Fixtures.addBulkPeople(to: store)
        let state = folder.appendingPathComponent("state")
        let environment = ["XDG_STATE_HOME": state.path]
        let history = state.appendingPathComponent("cdinspect/history").path
        func lastCommand() throws -> String? {
            try String(contentsOfFile: history, encoding: .utf8).split(separator: "\n").last.map(String.init)
        }

        let terminal = try PseudoTerminal([store], environment: environment)
        terminal.expect("cdinspect main> ")
        // Tab completes an entity, then a key path through a relationship.
        terminal.type("fetch Pers\t--where 'ANY cars.na\t== \"Mustang\" AND name == \"dave0\"' --keys name\r")
        terminal.expect("Person/p1  dave0")
        XCTAssertEqual(try lastCommand(), "fetch Person --where 'ANY cars.name == \"Mustang\" AND name == \"dave0\"' --keys name")
        XCTAssertFalse(terminal.seen.contains("\u{1B}[1m"), "no colour under NO_COLOR")
        terminal.expect("cdinspect main> ")
        // On a terminal, a table too wide for it has its wide cells cut with an ellipsis.
        terminal.type("fetch Person --where 'name == \"dave1\"' --keys name,homepage,id,birthday,balance\r")
        terminal.expect("Person/p2  dave1  ")
        terminal.expect("cdinspect main> ")
        // Each screen line, after any carriage return and escape the terminal echoed before it.
        let lines = terminal.seen.components(separatedBy: "\r\n").map { $0.components(separatedBy: "\r").last ?? $0 }
        let header = try XCTUnwrap(lines.last { $0.hasPrefix("objectID") && $0.contains("birthday") && $0.hasSuffix("balance") }, lines.suffix(8).joined(separator: "\n"))
        let row = try XCTUnwrap(lines.last { $0.hasPrefix("Person/p2  dave1  ") })
        XCTAssertEqual(header.count, row.count)
        XCTAssertLessThanOrEqual(row.count, 80, row)
        let uuidCell = row.components(separatedBy: "  ").first { $0.hasPrefix("00000000-0000-40") }
        XCTAssertTrue(uuidCell?.hasSuffix("…") == true && (uuidCell?.count ?? 99) < 36, "the UUID is cut too: \(row)")
        // A line ending in a backslash continues under its own prompt.
        terminal.type("count \\\r")
        terminal.expect("   ...> ")
        terminal.type("Tag\r")
        terminal.expect("4\r\n")

        // Options and context names complete too.
        terminal.type("count Tag --con\tbackg\t\r")
        terminal.expect("4\r\n")
        XCTAssertEqual(try lastCommand(), "count Tag --context background ", "completed, with the space after")
        // explain's --as completes the code forms too.
        terminal.type("explain Tag --where 'name == \"work\"' --as fetch-d\t\r")
        terminal.expect("let descriptor = FetchDescriptor<Tag>(")
        XCTAssertEqual(try lastCommand(), "explain Tag --where 'name == \"work\"' --as fetch-descriptor ")

        // The prompt shows a pin.
        terminal.type("pin\r")
        terminal.expect("cdinspect main@g1> ")
        terminal.type("unpin\r")
        terminal.expect("cdinspect main> ")

        // Ctrl-C stops a long fetch; the REPL answers the next command.
        terminal.type("fetch Person --format csv\r")
        terminal.expect("bulk1000,")
        terminal.type("\u{03}")
        terminal.expect("error: interrupted")
        terminal.expect("cdinspect main> ")
        terminal.type("count Person --where 'age == 200'\r")
        terminal.expect("age == 200'")
        terminal.expect("2000000\r\n")

        // Ctrl-C at the prompt drops the line typed so far. (Typed apart: the terminal
        // discards what the REPL has not read yet when Ctrl-C arrives.)
        terminal.expect("cdinspect main> ")
        terminal.type("garbage")
        terminal.expect("garbage")
        terminal.type("\u{03}")
        terminal.expect("cdinspect main> ")
        terminal.type("count Tag\r")
        terminal.expect("count Tag")
        terminal.expect("4\r\n")
        XCTAssertFalse(terminal.seen.contains("unknown command"), terminal.seen)

        // Ctrl-D leaves with status 0.
        terminal.type("\u{04}")
        XCTAssertEqual(terminal.wait(), 0, terminal.seen)

        // History: kept with mode 0600, and back after a restart (Ctrl-P is the line before).
        let attributes = try FileManager.default.attributesOfItem(atPath: history)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertTrue(try String(contentsOfFile: history, encoding: .utf8).hasSuffix("count Tag\n"))
        var colored = environment
        colored["NO_COLOR"] = ""
        let again = try PseudoTerminal([store], environment: colored)
        again.expect("cdinspect main> ")
        again.type("\u{10}")
        again.expect("count Tag")
        again.type("\r")
        again.expect("4\r\n")
        // Without NO_COLOR, a table's header is bold on a terminal.
        again.type("entities\r")
        again.expect("\u{1B}[1mname ")
        again.type("quit\r")
        XCTAssertEqual(again.wait(), 0, again.seen)
    }
}

extension REPLTests {
    /// The history file keeps the newest 2000 commands: a longer one is cut back when a session
    /// starts, and Up (Ctrl-P) reaches the newest.
    func testHistoryKeepsTheNewestCommands() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 5).path
        let state = folder.appendingPathComponent("state")
        let history = state.appendingPathComponent("cdinspect/history")
        try FileManager.default.createDirectory(at: history.deletingLastPathComponent(), withIntermediateDirectories: true)
        try ((1...2100).map { "count Person --where 'age > \($0)'" } + ["count Tag"]).joined(separator: "\n").appending("\n")
            .write(to: history, atomically: true, encoding: .utf8)

        let terminal = try PseudoTerminal([store], environment: ["XDG_STATE_HOME": state.path])
        terminal.expect("cdinspect main> ")
        terminal.type("\u{10}\r")
        terminal.expect("4\r\n")
        terminal.type("quit\r")
        XCTAssertEqual(terminal.wait(), 0, terminal.seen)

        let lines = try String(contentsOf: history, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.first, "count Person --where 'age > 102'")
        XCTAssertEqual(lines.suffix(3), ["count Tag", "count Tag", "quit"])
        XCTAssertEqual(lines.count, 2002, "2000 kept at the start, two added")
        let attributes = try FileManager.default.attributesOfItem(atPath: history.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    }
}

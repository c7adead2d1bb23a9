import XCTest
@testable import Inspector

final class SessionLanguageTests: XCTestCase {
    func testWordsSplitLikeAShell() throws {
        XCTAssertEqual(try CommandLineSplitter.words(#"fetch Person --where 'name == "a b"' --limit 5"#),
                       ["fetch", "Person", "--where", #"name == "a b""#, "--limit", "5"])
        XCTAssertEqual(try CommandLineSplitter.words(#"a "b \"c\" \d" e\ f # comment"#), ["a", #"b "c" \d"#, "e f"])
        XCTAssertEqual(try CommandLineSplitter.words("   # only a comment"), [])
        XCTAssertEqual(try CommandLineSplitter.words("name#tag"), ["name#tag"])
        XCTAssertThrowsError(try CommandLineSplitter.words("fetch 'unterminated"))
    }

    func testWhereClauseKeepsTheRestOfTheLineVerbatim() {
        let split = CommandLineSplitter.splitWhereClause(#"fetch Person where name == "O'Brien" AND age > 3"#, commands: ["fetch"])
        XCTAssertEqual(split?.head, "fetch Person")
        XCTAssertEqual(split?.predicate, #"name == "O'Brien" AND age > 3"#)
        XCTAssertNil(CommandLineSplitter.splitWhereClause("fetch Person --where x", commands: ["fetch"]))
        XCTAssertNil(CommandLineSplitter.splitWhereClause("schema Person where x", commands: ["fetch"]))
    }

    func testOutputValueRendering() {
        XCTAssertEqual(OutputValue.string("a\"b\\c\n\u{1}").jsonText, #""a\"b\\c\n\u0001""#)
        XCTAssertEqual(OutputValue.date(0).text, "2001-01-01T00:00:00Z")
        XCTAssertEqual(OutputValue.date(700_000_000.5).jsonText, "\"2023-03-08T20:26:40.500Z\"")
        XCTAssertEqual(OutputValue.data([0, 1, 2, 255]).text, "AAEC/w==")
        XCTAssertEqual(OutputValue.real(2).jsonText, "2.0")
        func csvField(_ text: String) -> String {
            let sink = OutputSink(collectingWithWidth: nil)
            sink.csvField(text)
            sink.flush()
            return String(decoding: sink.collected, as: UTF8.self)
        }
        XCTAssertEqual(csvField("plain"), "plain")
        XCTAssertEqual(csvField("a,\"b\"\nc"), "\"a,\"\"b\"\"\nc\"")
    }
}

/// Shell completion of entity names reads the store typed on the line.
final class EntityCompletionTests: XCTestCase {
    func testEntityNamesComeFromTheStoreOnTheLine() {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/People.sqlite").path
        XCTAssertEqual(EntityCompletion.names(words: ["--format", "json", example], prefix: ""), ["Car", "Person", "SportsCar", "Tag"])
        XCTAssertEqual(EntityCompletion.names(words: [example], prefix: "S"), ["SportsCar"])
        XCTAssertEqual(EntityCompletion.names(words: ["/no/such/store.sqlite"], prefix: ""), [])
    }

    func testSQLTakesTheRestOfTheLineOnlyWhenItStartsWithAKeyword() {
        XCTAssertEqual(CommandLineSplitter.rawTail("sql SELECT 'a b' FROM t", command: "sql"), "SELECT 'a b' FROM t")
        XCTAssertNil(CommandLineSplitter.rawTail(#"sql --format json "SELECT 1""#, command: "sql"))
        XCTAssertNil(CommandLineSplitter.rawTail("sqldebug 2", command: "sql"))
    }
}

import Foundation
import TestSupport
import XCTest
@testable import Inspector

/// The output layer: a command's answer is one thing, shown by format. What a program
/// receives as values (the MCP server, this suite's collector) is what JSON prints, and the
/// text formats show the faces a report gives for them.
final class ResultsTests: XCTestCase {
    private func rendered(_ format: OutputFormat, _ body: (Results) -> Void) -> String {
        let sink = OutputSink(collectingWithWidth: nil)
        body(Results(format: format, sink: sink))
        sink.flush()
        return String(decoding: sink.collected, as: UTF8.self)
    }

    private let report = Report(
        value: { .object([("verdict", .string("fine")), ("count", .integer(2))]) },
        people: { [.line("Summary:"), .rows(["name", "n"], [[.string("a"), .integer(1)], [.string("b"), .integer(1)]]), .gap, .line("verdict: fine")] })

    func testAReportShowsOneFacePerFormat() {
        XCTAssertEqual(rendered(.json) { $0.report(report) }, "{\"verdict\": \"fine\", \"count\": 2}\n")
        XCTAssertEqual(rendered(.table) { $0.report(report) }, "Summary:\nname  n\n----  -\na     1\nb     1\n\nverdict: fine\n")
        // Without a CSV face of its own, CSV carries the tables and none of the prose.
        XCTAssertEqual(rendered(.csv) { $0.report(report) }, "name,n\na,1\nb,1\n")
        let flat = Report(value: { .null }, people: { [.line("for people")] }, csv: { [.rows(["x"], [[.integer(1)]])] },
                          lines: { [.record([("x", .integer(1))])] })
        XCTAssertEqual(rendered(.csv) { $0.report(flat) }, "x\n1\n")
        XCTAssertEqual(rendered(.line) { $0.report(flat) }, "x = 1\n")
    }

    func testScalarsNotesAndListsByFormat() {
        XCTAssertEqual(rendered(.json) { $0.scalar("count", .integer(3)) }, "{\"count\": 3}\n")
        XCTAssertEqual(rendered(.table) { $0.scalar("count", .integer(3)) }, "3\n")
        XCTAssertEqual(rendered(.csv) { $0.scalar("token", .null, text: "unpinned") }, "unpinned\n")
        XCTAssertEqual(rendered(.table) { $0.note("a summary") }, "a summary\n")
        XCTAssertEqual(rendered(.json) { $0.note("a summary") }, "")
        XCTAssertEqual(rendered(.csv) { $0.note("a summary") }, "")
        // A list as a whole answer prints one element a line, as rows do; an empty one as [].
        XCTAssertEqual(OutputValue.array([.integer(1), .object([("a", .bool(true))])]).documentText, "[\n  1,\n  {\"a\": true}\n]\n")
        XCTAssertEqual(OutputValue.array([]).documentText, "[]\n")
    }

    func testWhatAProgramReceivesIsWhatJSONPrints() throws {
        let harness = try SessionHarness()
        for line in ["info", "schema Person", "schema", "count Person --where 'age > 30'", "explain Person --where 'age > 30' --sort name",
                     "doctor", "model hashes", "entities", "fetch Person --where 'age > 70' --sort name", "token"] {
            let collected = try harness.collect(line)
            let received = collected.answers.last ?? .array(collected.rows)
            XCTAssertEqual(received.documentText, try harness.run(line + " --format json"), line)
        }
        // A received answer carries no prose: the verdict is a value, not a line.
        let doctor = try harness.collect("doctor").answers
        XCTAssertEqual(doctor.count, 1)
        let verdict = try XCTUnwrap(doctor[0]["verdict"]?.text)
        XCTAssertTrue(try harness.run("doctor").hasSuffix("verdict: " + verdict + "\n"))
        XCTAssertEqual(try harness.collect("count Person").answers.first?["count"], .integer(50))
    }
}

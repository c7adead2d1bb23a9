import Foundation
import TestSupport
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
        // Options may come before `where`; a word that is no option is not this form.
        let optioned = CommandLineSplitter.splitWhereClause("fetch Person --limit 2 --raw where age > 70", commands: ["fetch"])
        XCTAssertEqual(optioned?.head, "fetch Person --limit 2 --raw")
        XCTAssertEqual(optioned?.predicate, "age > 70")
        XCTAssertNil(CommandLineSplitter.splitWhereClause("fetch Person bogus where age > 3", commands: ["fetch"]))
        XCTAssertNil(CommandLineSplitter.splitWhereClause("fetch Person --sort 'a b' where age > 3", commands: ["fetch"]))
        // Options after the predicate, as a new user types them; not inside quotes, nor a minus.
        let trailing = CommandLineSplitter.splitWhereClause(#"fetch Person where name == " --x" AND age > 70 --limit 3 --sort 'age:desc'"#,
                                                            commands: ["fetch"])
        XCTAssertEqual(trailing?.head, "fetch Person --limit 3 --sort 'age:desc'")
        XCTAssertEqual(trailing?.predicate, #"name == " --x" AND age > 70"#)
        XCTAssertEqual(CommandLineSplitter.splitWhereClause("fetch Person where age - -1 > 3 --limit 1", commands: ["fetch"])?.predicate,
                       "age - -1 > 3")
    }

    /// The same form on a shell's command line: the words after `where`, up to an option,
    /// are the predicate; the store and the entity come first, and `--where` given is left alone.
    func testWhereClauseOnAShellCommandLine() {
        func rewritten(_ arguments: [String], _ commands: Set<String>) -> [String]? {
            CommandLineSplitter.whereClauseArguments(arguments) { commands.contains($0) }
        }
        XCTAssertEqual(rewritten(["fetch", "S.sqlite", "Person", "where", "age > 70", "--limit", "3"], ["fetch"]),
                       ["fetch", "S.sqlite", "Person", "--where", "age > 70", "--limit", "3"])
        XCTAssertEqual(rewritten(["count", "S.sqlite", "Person", "--format", "json", "WHERE", "age", ">", "-1"], ["count"]),
                       ["count", "S.sqlite", "Person", "--format", "json", "--where", "age > -1"])
        XCTAssertNil(rewritten(["fetch", "S.sqlite", "where", "age > 1"], ["fetch"]))
        XCTAssertNil(rewritten(["fetch", "S.sqlite", "Person", "where"], ["fetch"]))
        XCTAssertNil(rewritten(["fetch", "S.sqlite", "Person", "--where", "a > 1", "where", "b"], ["fetch"]))
        XCTAssertNil(rewritten(["schema", "S.sqlite", "Person", "where", "x"], ["fetch"]))
    }

    /// `fetch`, `count` and `explain` take options after a `where` clause, in a session.
    func testOptionsAfterAWhereClause() throws {
        let harness = try SessionHarness()
        harness.format = .json
        let fetched = try JSONSerialization.jsonObject(with: Data(try harness.run("fetch Person where age > 20 --limit 3").utf8)) as? [Any]
        XCTAssertEqual(fetched?.count, 3)
        XCTAssertEqual(try harness.run("count Person where age > 20 --format table"),
                       try harness.run("count Person --where 'age > 20' --format table"))
        let code = try harness.run("explain Person where age > 20 --as nspredicate --format table")
        XCTAssertTrue(code.contains("age > 20"), code)
        XCTAssertFalse(code.contains("--as"), code)
        // A word after a complete predicate that is no option is the predicate's error, worded as a person would.
        XCTAssertThrowsError(try harness.run("fetch Person where age > 70 3")) { error in
            XCTAssertTrue("\(error)".contains("unexpected number 3 after a complete predicate"), "\(error)")
        }
    }

    func testOutputValueRendering() {
        XCTAssertEqual(OutputValue.string("a\"b\\c\n\u{1}").jsonText, #""a\"b\\c\n\u0001""#)
        XCTAssertEqual(OutputValue.date(0).text, "2001-01-01T00:00:00.000Z")
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

    /// Dates are formatted by hand, straight into the sink's buffer: every one must read as
    /// Foundation's ISO 8601 formatter writes the same instant with fractional seconds (one
    /// width: `.000` for a whole second, so that dates sort as text), across the years a store holds (from 1589: Foundation counts earlier dates in the Julian calendar) and at the sink's buffer edge.
    func testDatesReadAsFoundationWritesThem() {
        let whole = ISO8601DateFormatter()
        whole.timeZone = TimeZone(identifier: "UTC")
        let fractional = ISO8601DateFormatter()
        fractional.timeZone = TimeZone(identifier: "UTC")
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var values: [Double] = [9_999_999_999_999, 0, -1, 1, 0.5, -0.25, 59.999, 86_399, 86_400, -978_307_200, 700_000_000.5,
                                252_460_800_000, 951_782_400, -3_187_296_000]
        var generator = SeededGenerator(seed: 0x5EED_DA7E)
        for _ in 0..<2_000 { values.append(Double(Int64.random(in: -13_000_000_000...250_000_000_000, using: &generator))) }
        for _ in 0..<2_000 { values.append(Double(Int64.random(in: -3_000_000_000...3_000_000_000, using: &generator)) / 1000) }
        let sink = OutputSink(collectingWithWidth: nil)
        var expected = ""
        for value in values {
            let date = Date(timeIntervalSinceReferenceDate: value)
            let text = fractional.string(from: date)
            if value.rounded() == value { XCTAssertEqual(text, whole.string(from: date).dropLast() + ".000Z") }
            XCTAssertEqual(OutputValue.isoDate(value), text, "\(value)")
            sink.date(value, json: false)
            sink.byte(10)
            expected += text + "\n"
        }
        // A value no calendar date fits is shown as the number the store holds.
        sink.date(.nan, json: false)
        sink.byte(10)
        sink.date(1e14, json: true)
        sink.flush()
        XCTAssertEqual(String(decoding: sink.collected, as: UTF8.self), expected + "NaN\n\"100000000000000.0\"")
    }

    /// `--time-zone`: a date in another zone reads as Foundation writes it there, with the
    /// offset in force at that date (summer time included), one width in the zone.
    func testDatesInAZoneReadAsFoundationWritesThemThere() throws {
        var zones: [(DateStyle.Zone, TimeZone)] = [(.offset(19_800), TimeZone(secondsFromGMT: 19_800)!),
                                                   (.offset(-12_600), TimeZone(secondsFromGMT: -12_600)!)]
        for name in ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"] {
            guard let zone = TimeZone(identifier: name) else {
                if ProcessInfo.processInfo.environment["CDINSPECT_REQUIRE_TOOLS"] == "1" { XCTFail("no time zone \(name): install tzdata") }
                continue
            }
            XCTAssertEqual(try DateStyle.zone(parsing: name), .named(zone))
            zones.append((.named(zone), zone))
        }
        var generator = SeededGenerator(seed: 0x7155_20AE)
        // From 1901 on: before it, zones kept local mean time, offsets with seconds.
        let values = (0..<1_000).map { _ in Double(Int64.random(in: -3_100_000_000...3_000_000_000, using: &generator)) / 1000 }
            + [0, 700_000_000.5, 733_575_600, 752_032_800]
        for (zone, foundationZone) in zones {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = foundationZone
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let style = DateStyle(zone: zone, showsStored: false)
            for value in values {
                let text = OutputValue.isoDate(value, style)
                XCTAssertEqual(text, formatter.string(from: Date(timeIntervalSinceReferenceDate: value)), "\(value) in \(zone.name)")
                XCTAssertEqual(text.utf8.count, 29)
            }
        }
    }

    /// `--stored-dates`: the stored seconds beside the date in text, and in JSON the date as
    /// an object of both, so that a program can still read each.
    func testTheStoredValueIsShownBesideTheDate() {
        let style = DateStyle(zone: .offset(3600), showsStored: true)
        XCTAssertEqual(OutputValue.isoDate(726_702_558.948, style), "2024-01-11T22:49:18.948+01:00 (726702558.948)")
        let sink = OutputSink(collectingWithWidth: nil)
        sink.dateStyle = style
        OutputValue.object([("birthday", .date(-31_622_400)), ("never", .date(.infinity))]).writeJSON(to: sink)
        sink.flush()
        XCTAssertEqual(String(decoding: sink.collected, as: UTF8.self),
                       #"{"birthday": {"date": "2000-01-01T01:00:00.000+01:00", "stored": -31622400.0}, "never": {"date": "Infinity", "stored": "Infinity"}}"#)
    }

    /// Zones as the command line writes them, and a clear refusal of what is none.
    func testTimeZonesReadAsTheCommandLineWritesThem() throws {
        XCTAssertEqual(try DateStyle.zone(parsing: "UTC"), .utc)
        XCTAssertEqual(try DateStyle.zone(parsing: "z"), .utc)
        XCTAssertEqual(try DateStyle.zone(parsing: "+02:00"), .offset(7200))
        XCTAssertEqual(try DateStyle.zone(parsing: "-0530"), .offset(-19_800))
        XCTAssertEqual(try DateStyle.zone(parsing: "+2"), .offset(7200))
        XCTAssertEqual(DateStyle.Zone.offset(-19_800).name, "-05:30")
        for bad in ["Mars/Olympus", "+25:00", "+2:5", "", "+", "+123", "-00:60", "local time"] {
            XCTAssertThrowsError(try DateStyle.zone(parsing: bad), bad) { error in
                XCTAssertTrue("\(error)".contains("unknown time zone"), "\(error)")
            }
        }
    }

    /// Integers are written two digits at a time: every one must read as Swift writes it,
    /// at each count of digits and at both ends of Int64.
    func testIntegersReadAsSwiftWritesThem() {
        var values: [Int64] = [0, 9, 10, 99, 100, 101, 999, 1000, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0..<18 { power *= 10; values += [power - 1, power, power + 1, -power, -(power - 1)] }
        var generator = SeededGenerator(seed: 0x5EED_1A7E)
        for _ in 0..<2_000 { values.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...62, using: &generator)) }
        let sink = OutputSink(collectingWithWidth: nil)
        for value in values { sink.integer(value); sink.byte(10) }
        sink.flush()
        XCTAssertEqual(String(decoding: sink.collected, as: UTF8.self), values.map { "\($0)\n" }.joined())
    }

    /// The sink copies into a buffer of its own: writes larger than it, and many small
    /// ones across its edge, come out whole and in order, to a file or collected.
    func testSinkKeepsWritesLargerThanItsBuffer() throws {
        let big = String(repeating: "abcdefgh", count: 40_000)
        var expected = ""
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString)").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        let toFile = OutputSink(handle: handle)
        let collecting = OutputSink(collectingWithWidth: nil)
        for sink in [toFile, collecting] {
            for i in 0..<20_000 { sink.integer(Int64(i - 10_000)); sink.byte(10) }
            sink.write(big)
            sink.csvField(big + ",\"")
            sink.jsonEscaped(big + "\n")
            sink.flush()
        }
        try handle.close()
        for i in 0..<20_000 { expected += "\(i - 10_000)\n" }
        expected += big + "\"" + big + ",\"\"\"" + big + "\\n"
        XCTAssertEqual(String(decoding: collecting.collected, as: UTF8.self), expected)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), expected)
    }

    /// Reals are written without a String when they have few digits; the text must be
    /// what Swift's `description` gives (whole numbers with `.0`), digit for digit.
    func testRealsReadAsSwiftWritesThem() {
        func text(_ d: Double) -> String { OutputValue.real(d).text }
        func expected(_ d: Double) -> String {
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
            if d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) + ".0" }
            return d.description
        }
        let fixed: [Double] = [0, -0.0, 45.15, -9075.49, 0.1 + 0.2, 0.0001, 0.00012, 0.00001, 1.0 / 3, 123456789012.5,
                               99999999999999.9, 999999999999999.9, 1e15 + 0.5, 1e15, -1e300, .leastNonzeroMagnitude, .nan, .infinity,
                               -.infinity, 0.1, 0.7, 1.005, 2.675, 4.35, 1e-4 + 1e-19]
        for d in fixed { XCTAssertEqual(text(d), expected(d), "\(d)") }
        var generator = SeededGenerator(seed: 0x5EED_0EA1)
        for _ in 0..<200_000 {
            // Short decimals (prices, measurements) and arbitrary bit patterns.
            let places = Int.random(in: 0...12, using: &generator)
            let short = Double(Int64.random(in: -999_999_999_999...999_999_999_999, using: &generator)) / pow(10, Double(places))
            let bits = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
            for d in [short, bits] where !d.isNaN { XCTAssertEqual(text(d), expected(d), "\(d)") }
        }
        XCTAssertEqual(OutputValue.real(-2.5).jsonText, "-2.5")
        XCTAssertEqual(OutputValue.real(.nan).jsonText, "\"NaN\"")
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

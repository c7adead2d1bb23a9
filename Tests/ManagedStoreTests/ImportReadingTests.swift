import Foundation
import XCTest
@testable import ManagedStore

/// The import's readers and conversions, on the shapes of text users hand them.
final class ImportReadingTests: XCTestCase {
    private func file(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("import-reading-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    private func records(_ text: String) throws -> [[String]] {
        var reader = try CSVReader(path: try file(Array(text.utf8)))
        var out: [[String]] = []
        while try reader.read() {
            out.append(try reader.fields.map { field in (field.quoted ? "q:" : "") + (try reader.text(field)) })
        }
        return out
    }

    func testCSVQuotesCommasLineBreaksAndBlankLines() throws {
        XCTAssertEqual(try records("a,b\r\n\"x, y\",\"say \"\"hi\"\"\"\n\n\"two\nlines\",\n,\"\"\nlast,row"),
                       [["a", "b"], ["q:x, y", "q:say \"hi\""], ["q:two\nlines", ""], ["", "q:"], ["last", "row"]])
        XCTAssertThrowsError(try records("a\n\"open")) { error in
            XCTAssertEqual(error as? ImportError, .malformed(line: 2, why: "a quoted field is not closed"))
        }
        XCTAssertThrowsError(try records("\"a\"b\n")) { error in
            XCTAssertEqual(error as? ImportError, .malformed(line: 1, why: "text follows a quoted field's closing quote"))
        }
    }

    func testJSONEscapesRawBytesAndDepth() throws {
        var reader = try JSONReader(path: try file(Array(#"[{"a": "\u00e9\ud83d\ude00\n", "b": [1, {"c": 2.5e3}], "n": -12}]"#.utf8)))
        var first = true
        XCTAssertTrue(try reader.nextElement(first: &first))
        var objectFirst = true
        XCTAssertEqual(try reader.nextKey(first: &objectFirst), "a")
        guard case .string(let text) = try reader.value() else { return XCTFail("not a string") }
        XCTAssertEqual(text, "é😀\n")
        XCTAssertEqual(try reader.nextKey(first: &objectFirst), "b")
        guard case .raw(let raw) = try reader.rawValue() else { return XCTFail("not raw") }
        XCTAssertEqual(String(decoding: raw, as: UTF8.self), #"[1, {"c": 2.5e3}]"#)
        XCTAssertEqual(try reader.nextKey(first: &objectFirst), "n")
        guard case .number(let n) = try reader.value() else { return XCTFail("not a number") }
        XCTAssertEqual(n, "-12")

        var deep = try JSONReader(path: try file(Array((String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)).utf8)))
        XCTAssertThrowsError(try deep.value()) { error in
            XCTAssertEqual(error as? ImportError, .malformed(line: 1, why: "values nest deeper than 256 levels"))
        }
        var lone = try JSONReader(path: try file(Array(#""\ud83d""#.utf8)))
        XCTAssertThrowsError(try lone.value())
    }

    func testDatesIntegersAndUUIDsFromBytes() throws {
        for text in ["2024-05-01T12:00:00Z", "1953-06-20T21:13:28Z", "2001-01-01", "2017-09-12T12:58:21.000Z", "1990-01-02T03:04:05.25Z"] {
            XCTAssertEqual(ISODate.seconds(text), ValueParsing.parseDate(text), text)
        }
        XCTAssertEqual(ISODate.seconds("2001-01-01T00:00:00Z"), 0)
        XCTAssertNil(ISODate.seconds("2024-13-01T00:00:00Z"))
        XCTAssertNil(ISODate.seconds("2024-05-01T12:00:00+02:00"))
        XCTAssertEqual(ImportValue.integer(ArraySlice("-9223372036854775808".utf8)), Int64.min)
        XCTAssertNil(ImportValue.integer(ArraySlice("9223372036854775808".utf8)))
        XCTAssertNil(ImportValue.integer(ArraySlice(" 7".utf8)))
        XCTAssertNil(ImportValue.integer(ArraySlice("-".utf8)))
        let uuid = UUID()
        XCTAssertEqual(ImportValue.uuidData(ArraySlice(uuid.uuidString.lowercased().utf8)), withUnsafeBytes(of: uuid.uuid) { Data($0) })
        XCTAssertNil(ImportValue.uuidData(ArraySlice("E621E1F8C36C495A93FC0C247A3E6E5F----".utf8)))
    }
}

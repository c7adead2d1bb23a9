import Foundation
import XCTest
@testable import ManagedStore

final class ModelXMLReaderTests: XCTestCase {
    private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private func events(_ text: String) throws -> [ModelXMLReader.Event] {
        var events: [ModelXMLReader.Event] = []
        try ModelXMLReader.read(Array(text.utf8)) { events.append($0) }
        return events
    }

    private func failure(_ text: String) -> ModelXMLReader.Error? {
        do {
            _ = try events(text)
            return nil
        } catch {
            return error as? ModelXMLReader.Error
        }
    }

    func testElementsAndAttributesAroundEverythingElse() throws {
        let text = "\u{FEFF}" + """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <!DOCTYPE model [ <!ENTITY x "y"> ]>
            <!-- a comment with <entity name="Ghost"/> inside -->
            <model type='com.apple' note="a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; caf&#233; &#x1F600;">
                some text <![CDATA[ <entity name="Ghost"/> ]]>
                <entity name="Person" parentEntity = "Thing"><attribute name="age"/></entity>
            </model>

            """
        XCTAssertEqual(try events(text), [
            .start(name: "model", attributes: ["type": "com.apple", "note": "a & b <c> \"d\" 'e' café 😀"]),
            .start(name: "entity", attributes: ["name": "Person", "parentEntity": "Thing"]),
            .start(name: "attribute", attributes: ["name": "age"]),
            .end(name: "attribute"),
            .end(name: "entity"),
            .end(name: "model"),
        ])
    }

    func testErrorsNameTheLineAndTheProblem() {
        let cases: [(String, ModelXMLReader.Error)] = [
            ("<model>\n<entity>\n</model>", .init(line: 3, message: "</model> does not close <entity>")),
            ("<model>\n  <entity name=Person/>\n</model>", .init(line: 2, message: "an attribute value must be quoted")),
            ("<model a=\"&nbsp;\"/>", .init(line: 1, message: "unknown entity &nbsp;")),
            ("<model a=\"x & y\"/>", .init(line: 1, message: "an '&' that starts no entity (write &amp;)")),
            ("<model a=\"<\"/>", .init(line: 1, message: "'<' inside an attribute value")),
            ("<model a=\"1\" a=\"2\"/>", .init(line: 1, message: "attribute a is repeated in <model>")),
            ("<model a=\"1\"b=\"2\"/>", .init(line: 1, message: "expected a space, '>' or '/>' in <model>")),
            ("<model>\n<entity name=\"P\"", .init(line: 2, message: "the file ends inside <entity>")),
            ("<model>\n<entity>\n", .init(line: 3, message: "the file ends before </entity>")),
            ("<model/><model/>", .init(line: 1, message: "a second root element")),
            ("model", .init(line: 1, message: "text outside the root element")),
            ("</model>", .init(line: 1, message: "</model> closes nothing")),
            ("<1model/>", .init(line: 1, message: "unexpected '1' where a name belongs")),
            ("<model><!-- open", .init(line: 1, message: "the file ends inside a comment")),
            ("", .init(line: 1, message: "no element found")),
            ("<?xml version=\"1.0\"?>\n", .init(line: 2, message: "no element found")),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(failure(text), expected, text)
        }
    }

    /// A model file cut anywhere is an error with a line, never a crash or a model.
    func testCutModelFilesFailCleanly() throws {
        let path = packageRoot.appendingPathComponent("Examples/People.xcdatamodeld/People.xcdatamodel/contents").path
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: path)).map { $0 }
        let end = try XCTUnwrap(bytes.lastIndex(of: UInt8(ascii: ">")))
        for length in 0...end {
            XCTAssertThrowsError(try ModelXMLReader.read(Array(bytes.prefix(length))) { _ in }, "cut at \(length)") {
                XCTAssertTrue($0 is ModelXMLReader.Error)
            }
        }
        XCTAssertNoThrow(try ModelXMLReader.read(Array(bytes.prefix(end + 1))) { _ in })
    }

    func testBadModelFileMessageNamesFileAndLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdi-xml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("contents")
        try Data("<model>\n  <entity name=\"A\">\n</model>\n".utf8).write(to: bad)
        XCTAssertThrowsError(try XcdatamodelReader.model(atPath: bad.path)) {
            XCTAssertEqual("\($0)", "\(bad.path) is not an Xcode data model: line 3: </model> does not close <entity>")
        }
        try Data("<plist><dict/></plist>".utf8).write(to: bad)
        XCTAssertThrowsError(try XcdatamodelReader.model(atPath: bad.path)) {
            XCTAssertEqual("\($0)", "\(bad.path) is not an Xcode data model: it has no <model> element")
        }
    }
}

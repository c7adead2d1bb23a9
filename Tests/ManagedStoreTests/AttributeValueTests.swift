import Foundation
import XCTest
@testable import ManagedStore

final class AttributeValueTests: XCTestCase {
    func attribute(_ type: AttributeType, external: Bool = false) -> AttributeDescription {
        AttributeDescription(name: "x", type: type, allowsExternalBinaryDataStorage: external)
    }

    func decode(_ stored: StoredValue, _ type: AttributeType, external: Bool = false) -> AttributeValue {
        AttributeValueDecoder.decode(stored, as: attribute(type, external: external), store: nil)
    }

    func testScalarsFollowTheModelType() {
        XCTAssertEqual(decode(.integer(1), .boolean), .bool(true))
        XCTAssertEqual(decode(.integer(0), .boolean), .bool(false))
        // Dates are NUMERIC: whole seconds come back as INTEGER, others as REAL.
        XCTAssertEqual(decode(.integer(700_000_000), .date), .date(700_000_000))
        XCTAssertEqual(decode(.real(700_000_000.25), .date), .date(700_000_000.25))
        // Decimal is stored as REAL.
        XCTAssertEqual(decode(.real(3.3333333333), .decimal), .double(3.3333333333))
        XCTAssertEqual(decode(.integer(3), .decimal), .double(3))
        XCTAssertEqual(decode(.real(42), .integer32), .integer(42))
        XCTAssertEqual(decode(.null, .string), .null)
        XCTAssertEqual(decode(.text("https://example.com/a"), .uri), .uri("https://example.com/a"))
    }

    func testUUIDBlobs() {
        let bytes: [UInt8] = [0x75, 0x37, 0x53, 0xD3, 0xA9, 0x61, 0x49, 0x01, 0xAB, 0x05, 0x8C, 0xC4, 0x8B, 0x1D, 0x38, 0x53]
        XCTAssertEqual(decode(.blob(bytes), .uuid), .uuid(UUID(uuidString: "753753D3-A961-4901-AB05-8CC48B1D3853")!))
        XCTAssertEqual(decode(.blob([1, 2, 3]), .uuid), .data([1, 2, 3]), "not 16 bytes: shown as data")
    }

    func testExternalBinaryStorageTags() {
        XCTAssertEqual(decode(.blob([0x01, 0xAA, 0xBB]), .binaryData, external: true), .data([0xAA, 0xBB]))
        XCTAssertEqual(decode(.blob([0x01, 0xAA]), .binaryData, external: false), .data([0x01, 0xAA]),
                       "without external storage the first byte is data")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ext-\(UUID().uuidString)")
        let name = "0A1B2C3D-0000-4000-8000-000000000001"
        let support = folder.appendingPathComponent(".Store_SUPPORT/_EXTERNAL_DATA")
        XCTAssertNoThrow(try FileManager.default.createDirectory(at: support, withIntermediateDirectories: true))
        defer { try? FileManager.default.removeItem(at: folder) }
        XCTAssertTrue(FileManager.default.createFile(atPath: support.appendingPathComponent(name).path, contents: Data([1])))
        let storePath = folder.appendingPathComponent("Store.sqlite").path
        let value = AttributeValueDecoder.decode(.blob([0x02] + Array(name.utf8)), as: attribute(.binaryData, external: true),
                                                 store: nil)
        XCTAssertEqual(value, .externalFile(path: name, exists: false))
        XCTAssertEqual(AttributeValueDecoder.externalDataPath(for: storePath, name: name),
                       support.appendingPathComponent(name).path)
    }

    func testTransformablesAreSummarisedByArchivedClass() {
        let archive = PropertyListValue.dictionary([
            (.string("$archiver"), .string("NSKeyedArchiver")),
            (.string("$top"), .dictionary([(.string("root"), .uid(1))])),
            (.string("$objects"), .array([
                .string("$null"),
                .dictionary([(.string("NS.relative"), .uid(2)), (.string("$class"), .uid(3))]),
                .string("file:///tmp/a"),
                .dictionary([(.string("$classname"), .string("NSURL")), (.string("$classes"), .array([.string("NSURL")]))]),
            ])),
        ])
        let bytes = BinaryPropertyListWriter.encode(archive)
        XCTAssertEqual(decode(.blob(bytes), .transformable), .transformable(summary: "<NSURL \"file:///tmp/a\", \(bytes.count) bytes>", bytes: bytes))
        XCTAssertEqual(decode(.blob([9, 9]), .transformable), .transformable(summary: "<2 bytes>", bytes: [9, 9]))
    }
}

import Foundation
import Inspector
import TestSupport
import XCTest
@testable import ManagedStore

/// Every input a fuzzer or a hostile-input hunt ever broke a reader with is kept in
/// `FuzzTesting/FailCases/<FORMAT>/` and fed here through the same entry point the product
/// uses, without a sanitizer: each must give an answer or one typed error, never a trap, a
/// hang or an unbounded allocation. A format's folder names its reader.
final class FailCaseTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzTesting/FailCases")

    /// The readers, by folder: each takes the bytes and may throw.
    static let readers: [String: @Sendable ([UInt8]) throws -> Void] = [
        "KeyedArchive": { _ = try KeyedUnarchiver.decode($0) },
        // FuzzModelCache: Z_MODELCACHE's bytes, a model or a typed error (the timeout of
        // shared references expanding to millions of objects).
        "ModelCache": { _ = try ModelCacheReader.model(fromCompressed: $0) },
        // Read, written back, read again: FuzzBinaryPlist's round trip.
        "BinaryPropertyList": { _ = try BinaryPropertyList.decode(BinaryPropertyListWriter.encode(try BinaryPropertyList.decode($0))) },
        // FuzzNSPredicate's round trip: what parses, written back, parses and writes the same.
        "NSPredicate": { bytes in
            let format = NSPredicateWriter.format(try PredicateParser.parse(String(decoding: bytes, as: UTF8.self)))
            do {
                let again = try PredicateParser.parse(format)
                XCTAssertEqual(NSPredicateWriter.format(again), format, "a predicate written back reads as another")
            } catch {
                XCTFail("a predicate written back does not parse: \(error)")
            }
        },
        // FuzzModelXML's round trips: the model read, written as XML and as Core Data's
        // model cache, each read back as the same model.
        "ModelXML": { bytes in
            let model = try XcdatamodelReader.model(contents: bytes, file: "contents", source: "contents")
            let written = ModelXMLWriter.contents(of: model)
            let again = try XcdatamodelReader.model(contents: Array(written.utf8), file: "contents", source: "contents")
            XCTAssertEqual(ModelXMLWriter.contents(of: again), written, "the model written as XML reads back as another")
            // A model Core Data would not load is refused, never cached.
            if model.loadProblem != nil { return }
            let cached = try ModelCacheReader.model(fromCompressed: RawDeflate.deflate(BinaryPropertyListWriter.encode(ModelArchiver.archive(model))))
            XCTAssertEqual(ModelXMLWriter.contents(of: cached), written, "the model archived as Core Data caches it reads back as another")
        },
        // FuzzWAL: a -wal beside the example store, listed and each readable generation opened.
        "WAL": { bytes in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-failcase-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = folder.appendingPathComponent("People.sqlite").path
            try FileManager.default.copyItem(atPath: FailCaseTests.exampleStore.path, toPath: store)
            try Data(bytes).write(to: URL(fileURLWithPath: store + "-wal"))
            let timeline = try StoreTimeline.read(path: store)
            for entry in timeline.entries where entry.isReadable {
                if let opened = try? PersistentStore(path: store, options: .init(generation: entry.token)) { opened.close() }
            }
        },
        // FuzzCellCarver: the first byte picks the shape and page 1 or another, the rest is the page.
        "CellCarver": { bytes in
            guard let first = bytes.first else { return }
            CarvingReading.carveAll(Array(bytes.dropFirst()), shape: Int(first >> 1), pageNumber: first & 1 == 1 ? 1 : 2)
        },
        // FuzzBTreePage: the first byte picks page 1 or another, the rest is the page.
        "BTreePage": { bytes in
            guard let first = bytes.first else { return }
            BTreePageReading.readAll(Array(bytes.dropFirst()), pageNumber: first & 1 == 1 ? 1 : 2)
        },
        // FuzzWholeStore's commands on a copy of the store, opened read-only: each answers or
        // fails with its one error.
        "WholeStore": { bytes in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-failcase-\(UUID().uuidString).sqlite")
            try Data(bytes).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let harness = try SessionHarness(copying: file, format: .json, readonly: true)
            var lines = ["info", "entities"]
            for entity in harness.session.store.mapping.entities.prefix(6) where !entity.name.contains("'") && !entity.name.contains("\\") {
                lines.append("fetch '\(entity.name)' --limit 1")
            }
            for line in lines + ["doctor", "recover"] { _ = try? harness.run(line) }
        },
    ]

    /// The example store, beside which a `-wal` fail case is put.
    static let exampleStore = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/People.sqlite")

    /// Fail cases whose reader is beyond this target, by folder, and the test that replays them.
    static let replayedElsewhere: [String: String] = [
        // A request to browse's port: the model page's drawing kept Graphviz's process and its
        // pipes open for a minute, found by FuzzHTTPRequest's leak-checked replay.
        "HTTPRequest": "EndToEndTests.ModelCommandTests/testDrawingsLeaveNoDescriptorsOpen",
    ]

    func testEveryFailCaseIsAnAnswerOrATypedError() throws {
        let formats = try FileManager.default.contentsOfDirectory(atPath: root.path)
            .filter { !$0.hasPrefix(".") && Self.replayedElsewhere[$0] == nil }.sorted()
        XCTAssertFalse(formats.isEmpty, "no fail cases in \(root.path)")
        var replayed = 0
        for format in formats {
            let reader = try XCTUnwrap(Self.readers[format], "FailCases/\(format) has no reader in FailCaseTests.readers")
            for name in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(format).path).sorted() where !name.hasPrefix(".") {
                let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(format).appendingPathComponent(name)))
                do { try reader(bytes) } catch {
                    XCTAssertFalse(String(describing: error).isEmpty, "\(format)/\(name): an error with no words")
                }
                replayed += 1
            }
        }
        XCTAssertGreaterThan(replayed, 0)
    }

    /// A store whose model cache is gone, with 600 more columns in ZPERSON: its model is read
    /// from the schema, and the first fetch of that entity of 609 attributes (FuzzWholeStore
    /// found it on a Notes store with a broken cache) gives every column. Each attribute the
    /// fetch selects was found by scanning them all, and the inherited properties were rebuilt
    /// with a scan per property: quadratic, and that is what a timeout found. No test here
    /// times it (docs/fuzzing.md); this one holds the answer.
    func testAWideEntityReadFromTheSchemaIsFetchedWhole() throws {
        let harness = try SessionHarness(copying: root.appendingPathComponent("WholeStore/wide-entity-without-its-model.sqlite"), format: .json, readonly: true)
        let person = try XCTUnwrap(harness.session.store.mapping.entity(named: "Person"))
        XCTAssertEqual(person.attributes.count, 609, "the schema's columns, read as attributes")
        let fetched = try harness.run("fetch Person --limit 1 --sort name")
        XCTAssertTrue(fetched.contains("\"name\": \"dave0\""), fetched)
        for i in [0, 299, 599] { XCTAssertTrue(fetched.contains("\"extra\(i)\": null"), "extra\(i) in \(fetched.prefix(300))") }
    }

    /// The keyed archive of shared references is refused as too large, not expanded.
    func testTheSharedReferenceArchiveIsRefused() throws {
        let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent("KeyedArchive/shared-references-6x8.bplist")))
        XCTAssertThrowsError(try KeyedUnarchiver.decode(bytes)) { error in
            guard case .tooLarge? = error as? KeyedUnarchiver.Error else { return XCTFail("\(error)") }
        }
    }

    /// Parentheses nested inside SUBQUERYs inside parentheses (found by FuzzNSPredicate) are
    /// read once per parser state: a `(` may open a predicate or an expression, and the parser
    /// tried both ways again for every way back, 75 seconds for 490 bytes. Counted, not timed:
    /// each `(` is read as a predicate a few times at most (once per nesting depth it is
    /// reached at), never exponentially often.
    func testParenthesesAreNotReadAgainOnEveryWayBack() throws {
        for name in ["subqueries-in-parentheses-75s.txt", "subqueries-in-parentheses-24s.txt"] {
            let text = try String(contentsOf: root.appendingPathComponent("NSPredicate/\(name)"), encoding: .utf8)
            let parentheses = text.filter { $0 == "(" }.count
            let readings = PredicateParser.parenthesisReadings(text)
            XCTAssertGreaterThan(readings, 0, name)
            XCTAssertLessThanOrEqual(readings, 4 * parentheses, "\(name): \(parentheses) parentheses read \(readings) times")
        }
        // Nesting that is read both ways still parses as it did.
        XCTAssertEqual(NSPredicateWriter.format(try PredicateParser.parse("((age + 1) * 2 > 10 AND ((name == 'a')))")),
                       "((age + 1) * 2) > 10 AND name == \"a\"")
    }
}

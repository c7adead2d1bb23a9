import Foundation
import GRDB
@testable import ManagedStore
import XCTest

/// A fetch hands plain attributes over as they sit in SQLite's row (`RowValue`) and decodes
/// the rest. Stores are user input: a column may hold another storage class than its
/// attribute's type, text that is no UTF-8, or characters a format must quote. Whichever
/// way a value comes, it must print as the decoded value prints.
final class RowValueTests: ExampleStoreTestCase {
    /// Rows edited as a hand or another tool would leave them.
    func writeAwkwardRows() throws {
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            try db.execute(sql: """
                UPDATE ZPERSON SET ZAGE = '41', ZNAME = 42, ZBIRTHDAY = 1000, ZISACTIVE = 2, ZSCORE = 7 WHERE Z_PK = 1;
                UPDATE ZPERSON SET ZAGE = 3.0, ZNAME = CAST(x'FF41' AS TEXT), ZBIRTHDAY = 'soon', ZISACTIVE = 0.5, ZSCORE = 'high' WHERE Z_PK = 2;
                UPDATE ZPERSON SET ZAGE = NULL, ZNAME = 'comma, "quote"' || char(10) || 'line', ZBIRTHDAY = 12.5, ZISACTIVE = 1, ZBALANCE = 3 WHERE Z_PK = 3;
                UPDATE ZPERSON SET ZNAME = 'back\\slash' || char(9) || char(127) || 'é', ZBIRTHDAY = NULL WHERE Z_PK = 4;
                UPDATE ZPERSON SET ZBIRTHDAY = 1e15, ZAGE = -9223372036854775808 WHERE Z_PK = 5;
                """)
        }
        try queue.close()
    }

    /// The objects fetch (values in place) against the dictionary fetch of the same keys,
    /// which decodes every value: the same text in every format, the object ID apart.
    func testValuesReadInPlacePrintAsDecodedValuesPrint() throws {
        try writeAwkwardRows()
        let keys = "name,age,birthday,isActive,score,balance"
        // In table form the object ID column sets the widths: the streamed formats are compared.
        for format in ["csv", "json", "line"] {
            let objects = try CLI.run(["fetch", store, "Person", "--keys", keys, "--format", format, "--limit", "6"])
            let dicts = try CLI.run(["fetch", store, "Person", "--as", "dicts", "--keys", keys, "--format", format, "--limit", "6"])
            XCTAssertEqual(objects.status, 0, objects.stderr)
            XCTAssertEqual(dicts.status, 0, dicts.stderr)
            XCTAssertEqual(withoutObjectIDs(objects.stdout, format: format), dicts.stdout, format)
        }
        let csv = try CLI.run(["fetch", store, "Person", "--keys", "name,age,birthday,isActive,score", "--format", "csv", "--limit", "3"]).stdout
        let rows = csv.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let p = uri("Person/p")
        XCTAssertEqual(rows.first, "\(p)1,42,41,2001-01-01T00:16:40.000Z,YES,7.0", "each value as its attribute's type decodes it")
        XCTAssertEqual(rows.dropFirst().first, "\(p)2,\u{FFFD}A,3,soon,YES,high", "text that is no UTF-8 is repaired")
        // The output's own bytes, before this test reads them as a String (which repairs too).
        for format in ["csv", "json", "line"] {
            let bytes = try CLI.run(["-c", "\"$0\" fetch \"$1\" Person --keys name --offset 1 --limit 1 --format \(format) | od -An -tx1",
                                     CLI.binary.path, store], executable: URL(fileURLWithPath: "/bin/sh"))
            let hex = bytes.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            XCTAssertTrue(hex.contains("ef bf bd 41"), "\(format): U+FFFD then A, not the byte FF: \(hex)")
        }
        XCTAssertEqual(Array(rows.dropFirst(2).prefix(1)), ["\(p)3,\"comma, \"\"quote\"\""])
        XCTAssertTrue(rows.dropFirst(3).first?.hasPrefix("line\",NULL,2001-01-01T00:00:12.500Z,YES,") == true, csv)
        let json = try CLI.run(["fetch", store, "Person", "--keys", "name", "--format", "json", "--offset", "3", "--limit", "1"]).stdout
        XCTAssertEqual(json, "[\n  {\"objectID\": \"\(p)4\", \"name\": \"back\\\\slash\\t\\u007fé\"}\n]\n")
    }

    /// A value read in place is SQLite's bytes for the current row. A `FetchedObject` cannot
    /// be kept past its row: it is noncopyable and handed to the body borrowed, so code that
    /// keeps one does not compile, and what outlives it is its ID. A `FetchedRow` can be
    /// kept: once the fetch has stepped past it, reading a value it was read without fails
    /// instead of reading another row's bytes, and it still names its object.
    func testARowsValuesCannotBeReadAfterTheFetchMovesOn() throws {
        let persistent = try PersistentStore(path: store, options: .init(readonly: true))
        let coordinator = Coordinator(store: persistent)
        let context = Context(name: "main", coordinator: coordinator)
        let request = FetchRequest(entityName: "Person", sortDescriptors: [.init(keyPath: "name")])
        var names: [String] = []
        var ids: [ObjectID] = []
        try context.fetch(request, keys: ["name", "age"]) { object in
            var inPlace: RowValue?
            try object.withValue(0) { value in
                inPlace = value
                if case .text(let bytes) = value { names.append(String(decoding: bytes, as: UTF8.self)) }
            }
            guard case .text? = inPlace else { return XCTFail("a string attribute's text comes in place") }
            XCTAssertEqual(try object.value(0), .attribute(.string(names.last ?? "")))
            ids.append(object.objectID)
        }
        XCTAssertEqual(names.count, 50)
        XCTAssertEqual(names, names.sorted())
        XCTAssertEqual(Set(ids).count, 50)
        XCTAssertEqual(ids.filter { $0.entityName == "Person" && $0.storeUUID == Fixtures.exampleUUID }.count, 50)

        // The same fetch's rows, every value left unread, the first kept past its row.
        let plan = try FetchPlan(request, store: persistent)
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: store, configuration: configuration)
        var first: FetchedRow?
        var count = 0
        _ = try queue.read { db in
            try plan.forEach(db, decoding: plan.properties.map { _ in false }) { row in
                if first == nil { first = row }
                XCTAssertNoThrow(try row.withValue(at: 0) { _ in })
                count += 1
            }
        }
        try queue.close()
        XCTAssertEqual(count, 50)
        guard let first else { return XCTFail("no rows") }
        XCTAssertThrowsError(try first.withValue(at: 0) { _ in }) { XCTAssertEqual("\($0)", "\(FetchError.rowNoLongerCurrent)") }
        XCTAssertThrowsError(try first.value(at: 1)) { XCTAssertEqual("\($0)", "\(FetchError.rowNoLongerCurrent)") }
        XCTAssertThrowsError(try first.complete()) { XCTAssertEqual("\($0)", "\(FetchError.rowNoLongerCurrent)") }
        XCTAssertEqual(first.objectID, ids.first)
        coordinator.close()
    }

    /// `withValues`, the one call a row that the fetch command makes, hands over what
    /// `withValue` hands over key by key: for rows, for a key read through the object (a
    /// key path), and for an object the context holds with an unsaved change.
    func testAllOfARowsValuesComeAsEachKeysValueComes() throws {
        let coordinator = Coordinator(store: try PersistentStore(path: store, options: .init(readonly: true)))
        let context = Context(name: "main", coordinator: coordinator)
        let changed = try context.existingObject(with: try context.objectID(parsing: "Person/p2"))
        try context.update(changed, values: [(key: "name", text: "'changed'")])
        let request = FetchRequest(entityName: "Person", sortDescriptors: [.init(keyPath: "name")])
        for keys in [["name", "age", "birthday", "photo"], ["age", "name.length", "name"]] {
            var rows = 0
            try context.fetch(request, keys: keys) { object in
                var each: [String] = []
                for i in keys.indices { try object.withValue(i) { each.append(Self.shown($0)) } }
                var all: [String] = []
                try object.withValues { all.append(Self.shown($0)) }
                XCTAssertEqual(all, each, "\(keys) of \(object.objectID.uri)")
                XCTAssertEqual(all.count, keys.count)
                if object.objectID.primaryKey == 2 { XCTAssertEqual(all[keys.firstIndex(of: "name") ?? 0], "string(\"changed\")") }
                rows += 1
            }
            XCTAssertEqual(rows, 50, "\(keys)")
        }
        coordinator.close()
    }

    /// A value handed over as text: in place or decoded, the same string.
    private static func shown(_ value: RowValue) -> String {
        switch value {
        case .text(let bytes): return "string(\"\(String(decoding: bytes, as: UTF8.self))\")"
        case .decoded(.attribute(.string(let s))): return "string(\"\(s)\")"
        case .decoded(let v): return "\(v)"
        case .null: return "null"
        case .integer(let i): return "integer(\(i))"
        case .real(let d): return "real(\(d))"
        case .bool(let b): return "bool(\(b))"
        case .date(let d): return "date(\(d))"
        }
    }

    /// Drops the objectID column (and JSON's key, line's label) that only an objects fetch has.
    private func withoutObjectIDs(_ text: String, format: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        switch format {
        case "csv":
            // A quoted field may hold a line break: only lines that start a row lose a field.
            return lines.map { line in
                guard line.hasPrefix("objectID,") || line.hasPrefix("x-coredata:"), let comma = line.firstIndex(of: ",") else { return line }
                return String(line[line.index(after: comma)...])
            }.joined(separator: "\n")
        case "json":
            return lines.map { $0.replacingOccurrences(of: #"\{"objectID": "[^"]*", "#, with: "{", options: .regularExpression) }
                .joined(separator: "\n")
        default:
            return lines.filter { !$0.hasPrefix("objectID") }.joined(separator: "\n")
        }
    }
}

import Foundation
import Inspector
import TestSupport
import XCTest

/// What contexts do with objects, run in process on a copy of the example store
/// (`SessionHarness`): registration and faults, and unsaved changes in fetches and counts.
final class ObjectGraphSemanticsTests: XCTestCase {
    static let uuid = "5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F"
    func uri(_ short: String) -> String { "x-coredata://\(Self.uuid)/\(short)" }

    /// Unchanged objects live as long as the session's last result holds them; changed ones
    /// until saved; all of them with retains-registered-objects.
    func testRegisteredObjectsAreHeldWeaklyUnlessRetained() throws {
        let session = try SessionHarness()
        session.format = .csv
        func registered() throws -> String {
            try session.run("registered").replacingOccurrences(of: "objectID,state\n", with: "")
        }
        try session.run("fetch Person --limit 2")
        XCTAssertEqual(try registered(), "\(uri("Person/p1")),fault\n\(uri("Person/p2")),fault\n")
        try session.run("get Person/p3")
        try session.run("update Person/p2 age=1")
        try session.run("fetch Car --limit 1 --no-faults")
        XCTAssertEqual(try registered(), "\(uri("Car/p1")),realized\n\(uri("Person/p2")),updated\n",
                       "the fetched people and the realized p3 are let go; the changed p2 is kept")
        try session.run("context set retains-registered-objects yes")
        try session.run("fetch Tag --limit 2")
        try session.run("fetch Car --limit 1 --offset 1")
        XCTAssertEqual(try registered(), "\(uri("Car/p1")),realized\n\(uri("Person/p2")),updated\n\(uri("SportsCar/p2")),fault\n"
                       + "\(uri("Tag/p1")),fault\n\(uri("Tag/p2")),fault\n")
    }

    /// Unsaved inserts, updates and deletes are matched in memory and merged into the
    /// store's rows at their sort position; counts agree; --no-pending shows the store.
    func testFetchesIncludePendingChanges() throws {
        let session = try SessionHarness()
        session.format = .csv
        // The store's own answer for the people the changes leave alone.
        let storeRows = try session.run("sql SELECT ZNAME || ':' || ZAGE AS row FROM ZPERSON WHERE ZNAME LIKE 'dave%' AND ZAGE >= 50 AND Z_PK NOT IN (2, 3, 5) ORDER BY ZAGE DESC, ZNAME")
            .split(separator: "\n").dropFirst().map { $0.replacingOccurrences(of: ":", with: ",") }
        XCTAssertFalse(storeRows.isEmpty)
        let storeCount = try session.run("count Person --where 'name BEGINSWITH \"dave\" AND age >= 50'")
        for line in ["insert Person name=dave-new id=11111111-2222-3333-4444-555555555555 age=50", "update Person/p3 age=99",
                     "update Person/p5 name=zed", "delete Person/p2"] {
            try session.run(line)
        }
        func rows(_ csv: String) -> [String] {
            csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",").dropFirst().joined(separator: ",") }
        }
        var expected = storeRows + ["dave2,99", "dave-new,50"]
        expected.sort { a, b in
            let (x, y) = (a.split(separator: ","), b.split(separator: ","))
            let (p, q) = (Int(x.last ?? "") ?? 0, Int(y.last ?? "") ?? 0)
            return p != q ? p > q : x[0].utf8.lexicographicallyPrecedes(y[0].utf8)
        }
        let predicate = "'name BEGINSWITH \"dave\" AND age >= 50'"
        XCTAssertEqual(rows(try session.run("fetch Person --where \(predicate) --sort age:desc --sort name --keys name,age")), expected)
        XCTAssertEqual(try session.run("count Person --where \(predicate)"), "\(expected.count)\n")
        XCTAssertEqual(rows(try session.run("fetch Person --where \(predicate) --sort age:desc --sort name --limit 3 --offset 1 --keys name")),
                       expected.dropFirst().prefix(3).map { String($0.split(separator: ",")[0]) })
        XCTAssertEqual(try session.run("count Person --where \(predicate) --no-pending"), storeCount)
        XCTAssertEqual(try session.run("count Person"), "50\n")
        XCTAssertEqual(try session.run("count Person --no-pending"), "50\n")
        XCTAssertEqual(session.warned, [])
    }
}

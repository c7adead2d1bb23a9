import Foundation
import XCTest

/// The genuine SwiftData stores read as the app sees them: no model/table warning, every
/// column of every table read by some property, and a fetch of every entity.
final class SwiftDataFixtureTests: XCTestCase {
    static let fixtures = [
        "thierryH91200_PegaseUIData_v2/SampleManager.store",
        "Hamanto-Studio_heritg/swiftdata-1.0.0.store",
        "Karim-ezzedine_CartKit/CartKitSwiftData_v1.sqlite",
    ]

    func testEveryColumnOfEverySwiftDataFixtureIsRead() throws {
        for fixture in Self.fixtures {
            let store = try Fixtures.copy(fixture, into: try Fixtures.temporaryDirectory(self)).path
            let schema = try XCTUnwrap(CLI.json(["schema", store, "--format", "json"]) as? [[String: Any]], fixture)
            var read: [String: Set<String>] = [:]
            for entity in schema {
                let table = try XCTUnwrap(entity["table"] as? String)
                for attribute in entity["attributes"] as? [[String: Any]] ?? [] {
                    if let column = attribute["column"] as? String { read[table, default: []].insert(column) }
                    if attribute["transient"] as? Bool != true {
                        XCTAssertNotNil(attribute["column"] as? String, "\(fixture): \(entity["name"] ?? "").\(attribute["name"] ?? "") has no column")
                    }
                }
                for relationship in entity["relationships"] as? [[String: Any]] ?? [] {
                    let storage = relationship["storage"] as? [String: Any] ?? [:]
                    XCTAssertNotEqual(storage["kind"] as? String, "none", "\(fixture): \(relationship)")
                    let inTable = (storage["table"] as? String) ?? table
                    for key in ["column", "entityColumn", "orderColumn"] {
                        if let column = storage[key] as? String { read[inTable, default: []].insert(column) }
                    }
                }
            }
            for (table, columns) in read {
                let all = try SQLiteShell.read(store, "SELECT group_concat(name, ' ') FROM pragma_table_info('\(table)')")
                    .split(separator: " ").map(String.init).filter { !["Z_PK", "Z_ENT", "Z_OPT"].contains($0) }
                XCTAssertEqual(Set(all).subtracting(columns), [], "\(fixture): columns of \(table) no property reads")
            }
            for entity in schema.compactMap({ $0["name"] as? String }) {
                let fetch = try CLI.run(["fetch", store, entity, "--limit", "3", "--format", "json"])
                XCTAssertEqual(fetch.status, 0, "\(fixture) \(entity): \(fetch.stderr)")
                XCTAssertEqual(fetch.stderr, "", "\(fixture) \(entity)")
            }
        }
    }

    /// SwiftData's `#Unique` and `#Index` as the schema shows them.
    func testUniquenessAndIndexesAreShown() throws {
        let store = try Fixtures.copy(Self.fixtures[0], into: try Fixtures.temporaryDirectory(self)).path
        let schema = try XCTUnwrap(CLI.json(["schema", store, "--format", "json"]) as? [[String: Any]])
        let constrained = schema.filter { !(($0["uniquenessConstraints"] as? [[String]]) ?? []).isEmpty }
        XCTAssertFalse(constrained.isEmpty, "SampleManager has uniqueness constraints")
        let name = try XCTUnwrap(constrained.first?["name"] as? String)
        let text = try CLI.run(["schema", store, name])
        XCTAssertTrue(text.stdout.contains("\nunique: "), text.stdout)
    }
}

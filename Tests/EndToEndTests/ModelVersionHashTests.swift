import Foundation
import XCTest

/// `model hashes`: the entity version hashes Core Data computes, against the ones Core Data
/// wrote into each genuine store's metadata; a new model's hashes decide whether Core Data
/// opens a store as is (`model diff`, `doctor --model`, `info`).
final class ModelVersionHashTests: XCTestCase {
    /// Every genuine store with a model cache: every entity's computed hash is the stored
    /// one (Core Data's and SwiftData's, framework versions 847 to 1523, derived attributes,
    /// inheritance, uniqueness constraints and hidden foreign keys among them).
    func testEveryFixtureWithAModelCacheHashesAsCoreDataDid() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let expected = [
            "Hamanto-Studio_heritg/swiftdata-1.0.0.store": 3, "Karim-ezzedine_CartKit/CartKitSwiftData_v1.sqlite": 3,
            "RhetTbull_PhotoScript/Photos.sqlite": 68, "RhetTbull_apple-notes-parser/NoteStore-macOS-12-Monterey.sqlite": 18,
            "RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite": 21,
            "alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite": 6,
            "alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V2.sqlite": 6,
            "alemar11_CoreDataPlus/SampleModel3__Fixtures__SampleModel3_V1.sqlite": 1,
            "alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V1.sqlite": 4,
            "alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V2.sqlite": 4,
            "log2timeline_plaso/RMAdminStore-Local.sqlite": 31, "log2timeline_plaso/knowledgec-10.13.db": 15,
            "thierryH91200_PegaseUIData_v2/SampleManager.store": 15, "tkanarsky_osxphotos/Photos-14.6.0.sqlite": 62,
            "wibosco_CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite": 1,
            "wibosco_CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite": 1,
            "wibosco_CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite": 2,
            "wibosco_CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite": 2,
        ]
        for (fixture, count) in expected.sorted(by: { $0.key < $1.key }) {
            let store = try Fixtures.copy(fixture, into: folder.appendingPathComponent(UUID().uuidString, isDirectory: true)
                .creatingDirectory()).path
            let rows = try XCTUnwrap(CLI.json(["model", store, "hashes", "--format", "json"]) as? [[String: Any]], fixture)
            XCTAssertEqual(rows.count, count, fixture)
            for row in rows {
                XCTAssertEqual(row["match"] as? Bool, true, "\(fixture): \(row)")
                XCTAssertEqual((row["computed"] as? String)?.count, 64, "\(fixture): \(row)")
                XCTAssertEqual(row["computed"] as? String, row["stored"] as? String, "\(fixture): \(row)")
            }
            let info = try XCTUnwrap(CLI.json(["info", store, "--format", "json"]) as? [String: Any], fixture)
            XCTAssertEqual(info["modelMatchesMetadata"] as? Bool, true, fixture)
        }
    }

    /// A store without a model cache, read with the Xcode model it was made with: the XML's
    /// hashes are Core Data's too, and the table ends with the verdict.
    func testAnXcodeModelHashesAsItsStore() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.copy("hwaxxer_BookMigration/Model1.sqlite", into: folder).path
        let model = try Fixtures.directory.appendingPathComponent("hwaxxer_BookMigration/Model1.xcdatamodel__contents").path
        let r = try CLI.run(["model", store, "hashes", "--model", model])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("Core Data opens this store with this model as is: every entity's version hash matches the store's metadata.\n"),
                      r.stdout)
        // The schema's guess cannot match, and says why.
        let guess = try CLI.run(["model", store, "hashes"])
        XCTAssertTrue(guess.stdout.contains("Core Data must migrate this store to open it with this model: 2 of 2 entity version hashes differ (Book, User)."),
                      guess.stdout)
        XCTAssertTrue(guess.stderr.contains("the model is the schema's guess"), guess.stderr)
        // The next model version changes User and Book: Core Data must migrate.
        let next = try Fixtures.directory.appendingPathComponent("hwaxxer_BookMigration/Model2.xcdatamodel__contents").path
        let differ = try CLI.run(["model", store, "diff", next, "--model", model, "--format", "json"])
        XCTAssertEqual(differ.status, 1, differ.stderr)
        let diff = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(differ.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(diff["opensWithoutMigration"] as? Bool, false)
        let same = try XCTUnwrap(CLI.json(["model", store, "diff", model, "--model", model, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(same["opensWithoutMigration"] as? Bool, true)
        let doctor = try XCTUnwrap(CLI.json(["doctor", store, "--model", model, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(doctor["opensWithoutMigration"] as? Bool, true)
    }

    /// The stores cdinspect's writer makes carry Core Data's hashes, so Core Data opens them
    /// with their model without a migration.
    func testAGeneratedStoreCarriesRealHashes() throws {
        let store = try Fixtures.exampleStore(in: try Fixtures.temporaryDirectory(self), people: 3).path
        let rows = try XCTUnwrap(CLI.json(["model", store, "hashes", "--format", "json"]) as? [[String: Any]])
        XCTAssertFalse(rows.isEmpty)
        XCTAssertTrue(rows.allSatisfy { $0["match"] as? Bool == true }, "\(rows)")
        let model = Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path
        let fromXML = try XCTUnwrap(CLI.json(["model", store, "hashes", "--model", model, "--format", "json"]) as? [[String: Any]])
        XCTAssertTrue(fromXML.allSatisfy { $0["match"] as? Bool == true }, "\(fromXML)")
        let info = try XCTUnwrap(CLI.json(["info", store, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(info["modelMatchesMetadata"] as? Bool, true)
    }
}

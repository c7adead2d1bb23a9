import Foundation
import GRDB
import ManagedStore
import XCTest

/// Values in genuine stores decode to what the app stored.
final class FixtureValueTests: XCTestCase {
    func firstValue(_ store: PersistentStore, entity: String, attribute: String) throws -> AttributeValue {
        let mapping = try store.entity(entity)
        let a = try XCTUnwrap(mapping.attribute(attribute))
        let column = try XCTUnwrap(a.column)
        let stored = try store.reader.read { db -> StoredValue in
            StoredValue(try DatabaseValue.fetchOne(db, sql: "SELECT \(column) FROM \(mapping.table) WHERE \(column) IS NOT NULL LIMIT 1") ?? .null)
        }
        return AttributeValueDecoder.decode(stored, as: a.attribute, store: store.file)
    }

    func testRealStoreValues() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let books = try PersistentStore(path: try Fixtures.copy("hwaxxer_BookMigration/Model1.sqlite", into: folder).path,
                                        options: .init(modelPath: try Fixtures.directory.appendingPathComponent("hwaxxer_BookMigration/Model1.xcdatamodel__contents").path))
        guard case .transformable(let summary, _) = try firstValue(books, entity: "Book", attribute: "fileURL") else {
            return XCTFail("fileURL is transformable")
        }
        // The app archived the file name as a plain string.
        XCTAssertEqual(summary, "<NSString \"The Trial.file\", 152 bytes>")

        let people = try PersistentStore(path: try Fixtures.copy("alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V1.sqlite", into: folder).path)
        guard case .uuid = try firstValue(people, entity: "Person", attribute: "id") else { return XCTFail("id is a UUID") }
        guard case .date(let updated) = try firstValue(people, entity: "Person", attribute: "updatedAt") else {
            return XCTFail("updatedAt is a date")
        }
        XCTAssertGreaterThan(updated, 500_000_000, "a date after 2016, in reference-date seconds")
    }
}

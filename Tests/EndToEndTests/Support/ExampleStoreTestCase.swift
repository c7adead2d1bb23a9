import Foundation
import XCTest

/// A test case whose every test starts with its own freshly generated example store (fifty
/// people, dave0 … dave49, a car each) in a temporary folder removed afterwards.
class ExampleStoreTestCase: XCTestCase {
    var folder: URL!
    var store: String!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
        store = try Fixtures.exampleStore(in: folder, people: 50).path
    }

    /// The full URI of `Entity/pN` in the example store (or the store with `uuid`).
    func uri(_ short: String, uuid: String = Fixtures.exampleUUID) -> String { Fixtures.uri(short, uuid: uuid) }
}

import Foundation
import XCTest

/// What the shipped binaries hold. `StoreCreation`'s loader writes rows past the coordinator,
/// history and `Z_OPT`: it serves the example generator and the tests, and a binary a user
/// installs must not be able to take that path. (Creating a new, empty store, `create`, is
/// the core's and shipped: it never writes into an existing file.)
final class ShippedProductsTests: XCTestCase {
    func testTheInstalledBinariesHoldNoStoreWriterPastTheCoordinator() throws {
        let names = ["StoreLoader"].map { Data($0.utf8) }
        func holds(_ binary: String) throws -> [Bool] {
            let bytes = try Data(contentsOf: CLI.productsDirectory.appendingPathComponent(binary), options: .alwaysMapped)
            return names.map { bytes.range(of: $0) != nil }
        }
        // The generator links them, and the search finds them there: it can see what it looks for.
        XCTAssertEqual(try holds("cdi-example-store"), [true])
        XCTAssertEqual(try holds("cdinspect"), [false])
        XCTAssertEqual(try holds("cdinspect-mcp"), [false])
        XCTAssertEqual(try holds("cdinspect-browse"), [false])
    }
}

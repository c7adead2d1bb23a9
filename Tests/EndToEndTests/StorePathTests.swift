import Foundation
import XCTest

/// A store is opened through an SQLite URI (`file:PATH?vfs=…`), so every character of its path
/// that a URI gives a meaning to (`?`, `#`, `%`, `&`, a space) and every byte beyond ASCII
/// must reach SQLite as the path's own bytes: else the store is not found, or another file is
/// opened or created beside it.
final class StorePathTests: XCTestCase {
    func testAStoreUnderAFolderWhoseNameAURIWouldReadIsOpened() throws {
        let root = try Fixtures.temporaryDirectory(self)
        let folder = root.appendingPathComponent("Läufer 100% ?a=b#c&d")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try Fixtures.exampleStore(in: folder, people: 50).path
        for options in [[], ["--readonly"], ["--immutable"]] {
            let result = try CLI.run(["count", store, "Person"] + options)
            XCTAssertEqual(result.status, 0, "\(options): \(result.stderr)")
            XCTAssertEqual(result.stdout, "50\n", "\(options)")
        }
        // Nothing was made at a path SQLite could have read out of a misread URI.
        let made = try FileManager.default.contentsOfDirectory(atPath: root.path)
        XCTAssertEqual(made, ["Läufer 100% ?a=b#c&d"])
        let beside = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix("People.sqlite") }
        XCTAssertEqual(beside, [])
    }
}

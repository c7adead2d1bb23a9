import Foundation
import XCTest

/// `../shared` beside the checkout: the genuine Apple-written fixture stores, the predicate
/// conformance cases and the seeds. A clone from a public host does not have it, so the tests
/// that need it skip, saying why; `CDINSPECT_REQUIRE_SHARED=1` (set by `.ci/run`) makes its
/// absence a failure instead, so CI can never pass by skipping them.
enum SharedFiles {
    static var root: URL { Fixtures.packageRoot.deletingLastPathComponent().appendingPathComponent("shared") }

    /// `relativePath` under ../shared.
    static func require(_ relativePath: String) throws -> URL {
        try require(root.appendingPathComponent(relativePath))
    }

    /// `url` if it exists; otherwise the test skips (or fails, under CDINSPECT_REQUIRE_SHARED=1).
    static func require(_ url: URL) throws -> URL {
        guard !FileManager.default.fileExists(atPath: url.path) else { return url }
        let message = "\(url.standardizedFileURL.path) is missing: the tests of genuine Apple stores, "
            + "conformance cases and seeds need ../shared beside the checkout"
        if ProcessInfo.processInfo.environment["CDINSPECT_REQUIRE_SHARED"] == "1" {
            throw NSError(domain: "SharedFiles", code: 1,
                          userInfo: [NSLocalizedDescriptionKey: message + " (CDINSPECT_REQUIRE_SHARED=1)"])
        }
        throw XCTSkip(message)
    }
}

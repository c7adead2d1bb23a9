import Foundation
import XCTest

/// Programs some tests drive that a developer's machine may lack (Graphviz's `dot`, Chromium
/// and its WebDriver): the tests skip, saying which and how to install it, unless
/// `CDINSPECT_REQUIRE_TOOLS=1` (set by `.ci/run`, which installs them), where a missing one
/// is a failure.
enum RequiredTools {
    /// The program `name` on PATH (or at one of `candidates`).
    static func require(_ name: String, candidates: [String] = [], install: String) throws -> URL {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        let message = "\(name) is not installed (\(install)): the tests that need it skip"
        if ProcessInfo.processInfo.environment["CDINSPECT_REQUIRE_TOOLS"] == "1" {
            throw NSError(domain: "RequiredTools", code: 1, userInfo: [NSLocalizedDescriptionKey: message + " (CDINSPECT_REQUIRE_TOOLS=1)"])
        }
        throw XCTSkip(message)
    }

    static var dot: URL { get throws { try require("dot", install: "apt-get install graphviz, brew install graphviz") } }
}

import Foundation
import XCTest

/// Tests that take minutes, not seconds: the timed kills of 200,000-row transactions, and the
/// first grid page and object of every entity of every fixture store in the browser. The
/// README's test command skips them, saying so, to keep a run within its budget; what they
/// show is covered there more cheaply (each writing command killed at a sample of its
/// file-changing calls, every page of the example and the hostile stores in the browser).
/// `.ci/release` runs them, with `CDINSPECT_LONG=1`.
enum LongSuite {
    static func require(_ what: String) throws {
        guard ProcessInfo.processInfo.environment["CDINSPECT_LONG"] == "1" else {
            throw XCTSkip("\(what) takes minutes: .ci/release runs it (CDINSPECT_LONG=1)")
        }
    }
}

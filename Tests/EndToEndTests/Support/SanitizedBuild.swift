import Foundation

/// How much slower the cdinspect under test runs than a plain build: 1, or what
/// `Tests/sanitize.sh` sets in `CDINSPECT_SLOWDOWN` (ThreadSanitizer's build runs many times
/// slower than a plain debug build, and starts slower still). A test that gives cdinspect a
/// time limit only so that hostile work ends (`mcp --timeout`) gives it this many times as
/// long, so that ordinary work in the same run is not cut short by the build's own speed.
/// Nothing here loosens what a test checks: the limit is cdinspect's setting, not a measure.
enum SanitizedBuild {
    static var slowdown: Int {
        guard let text = ProcessInfo.processInfo.environment["CDINSPECT_SLOWDOWN"], let factor = Int(text), factor >= 1 else { return 1 }
        return factor
    }

    /// `seconds`, as many times longer as the build is slower.
    static func limit(_ seconds: Int) -> String { String(seconds * slowdown) }
}

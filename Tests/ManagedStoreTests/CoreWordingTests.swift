import Foundation
import XCTest

/// The core speaks Core Data's language, not the command line's: no string in
/// `Sources/ManagedStore` names an option (`--where`), a session command (`context set`,
/// `batch-update`) or the tool; the front ends add such hints where they map errors to text.
final class CoreWordingTests: XCTestCase {
    func testNoCommandLineWordsInTheCoresStrings() throws {
        let core = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ManagedStore")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: core.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 50)
        let literal = try NSRegularExpression(pattern: #""(?:[^"\\]|\\.)*""#)
        let words = try NSRegularExpression(pattern: #"--[a-z][a-z-]+|\bcontext set\b|\bbatch-(update|delete)\b|\bsqldebug\b|\buse --"#)
        // Names, not messages: the VFS's registered name and the connections' label.
        let allowed = ["\"cdinspect\""]
        var found: [String] = []
        for file in files {
            let text = try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                let line = String(line)
                for match in literal.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    guard let range = Range(match.range, in: line) else { continue }
                    let string = String(line[range])
                    if allowed.contains(string) { continue }
                    if words.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil || string.contains("cdinspect") {
                        found.append("\(file):\(number + 1): \(string)")
                    }
                }
            }
        }
        XCTAssertEqual(found, [])
    }
}

/// Every test starts its processes through `ChildProcess` (posix_spawn), which is safe from
/// any thread: Foundation's `Process` faulted when tests started processes from several
/// threads at once, and crashed whole runs.
final class TestProcessesTests: XCTestCase {
    func testNoTestStartsAProcessThroughFoundation() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: tests.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 40)
        let foundation = try NSRegularExpression(pattern: #"(?<![A-Za-z])Process\(\)|Process\.run\(|\.launchPath|\bPipe\(\)"#)
        var found: [String] = []
        for file in files where !file.hasSuffix("CoreWordingTests.swift") {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if foundation.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil { found.append("\(file):\(number + 1)") }
            }
        }
        XCTAssertEqual(found, [])
    }
}

import Foundation
import XCTest

/// What every run of the hostile-input suite must show, whatever the input: no signal (a
/// crash, or the kill that ends a hang), an exit status of 0, 1, 64 or 130, and a stderr of
/// `cdinspect: error:`/`cdinspect: warning:` lines only — one error line per failed command,
/// plus the usage line of a usage error and the two lines that show a predicate under its
/// caret. Runs happen on several threads, so findings are collected and asserted at the end.
final class HostileFindings: @unchecked Sendable {
    private let lock = NSLock()
    private var problems: [String] = []
    private(set) var commandsRun = 0
    private(set) var inputsTried = 0

    /// The longest a run may take before it counts as a hang.
    static let timeout: TimeInterval = 60

    func input() { lock.withLock { inputsTried += 1 } }

    func report(_ problem: String) { lock.withLock { problems.append(problem) } }

    /// Runs `cdinspect` and checks the result; `commands` is how many commands the run holds
    /// (a session script runs several, each of which may fail on its own line).
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, commands: Int = 1, _ what: @autoclosure () -> String) -> CLI.Result? {
        lock.withLock { commandsRun += commands }
        let result: CLI.Result
        do {
            result = try CLI.run(arguments, stdin: stdin, timeout: Self.timeout)
        } catch {
            report("\(what()): could not run: \(error)")
            return nil
        }
        for problem in Self.problems(in: result, commands: commands) {
            report("\(what()): \(problem)\n    stderr: \(result.stderr.prefix(600))")
        }
        return result
    }

    static func problems(in result: CLI.Result, commands: Int) -> [String] {
        var problems: [String] = []
        if result.signaled { problems.append("ended on signal \(result.status) (a crash, or killed after \(Int(timeout)) s)") }
        if !result.signaled && ![0, 1, 64, 130].contains(result.status) { problems.append("exit status \(result.status)") }
        for marker in ["Fatal error", "Stack dump", "backtrace", "Segmentation", "Illegal instruction"] where result.stderr.contains(marker) {
            problems.append("stderr holds '\(marker)'")
        }
        var errors = 0
        var shownPredicateLines = 0
        for line in result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("cdinspect: error: ") {
                errors += 1
                shownPredicateLines = line.contains("predicate") && line.contains("column") ? 2 : 0
            } else if line.hasPrefix("cdinspect: warning: ") || line.hasPrefix("Usage: ") {
                shownPredicateLines = 0
            } else if shownPredicateLines > 0 && line.hasPrefix("  ") {
                shownPredicateLines -= 1
            } else if !result.signaled { // a crash's backtrace is one finding, not one per line
                problems.append("stray stderr line: \(line.prefix(200))")
            }
        }
        if result.status == 0 && errors > 0 { problems.append("exit status 0 after \(errors) error line(s)") }
        if result.status != 0 && !result.signaled && (errors == 0 || errors > commands) {
            problems.append("\(errors) error lines for \(commands) command(s) and exit status \(result.status)")
        }
        return problems
    }

    /// Fails the test with every finding (the first 40 of them in full).
    func assertNone(file: StaticString = #filePath, line: UInt = #line) {
        let problems = lock.withLock { self.problems }
        XCTAssertTrue(problems.isEmpty, "\(problems.count) finding(s):\n" + problems.prefix(40).joined(separator: "\n"),
                      file: file, line: line)
    }
}

/// The bytes a read must leave alone: the store file and its `-wal` (absent and empty
/// alike). The `-shm` is SQLite's shared memory, which any reader may rebuild.
func storeBytes(_ path: String) -> Data {
    let fm = FileManager.default
    return (fm.contents(atPath: path) ?? Data()) + (fm.contents(atPath: path + "-wal") ?? Data())
}

/// Words a session reads back as the arguments they are.
func sessionLine(_ arguments: [String]) -> String {
    arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
}

/// Runs `body` for each element on as many threads as there are cores: each cdinspect run
/// is a process of its own, and the suite is mostly waiting for them.
func forEachConcurrently<T: Sendable>(_ items: [T], _ body: @Sendable (T) -> Void) {
    DispatchQueue.concurrentPerform(iterations: items.count) { body(items[$0]) }
}

import Foundation
import XCTest

/// Kills a writing command on entry to the Nth call of each file-changing system call, as
/// SQLite's crash tests stop a child mid-write: `strace -e inject=SYSCALL:signal=SIGKILL:when=N`
/// delivers SIGKILL before the call runs. A clean traced run counts each call first; then
/// every N (or a sample of them, `CDINSPECT_KILL_STEPS`) is one kill point, run on a fresh
/// copy of the scenario's folder.
struct KillHarness {
    /// The system calls that change a file or a folder.
    static let fileChangingCalls = ["write", "pwrite64", "rename", "renameat", "renameat2", "link", "linkat", "unlink", "unlinkat",
                                    "fsync", "fdatasync", "ftruncate", "mkdir", "mkdirat", "rmdir"]

    let strace: URL

    init() throws {
        strace = try RequiredTools.require("strace", install: "apt-get install strace")
    }

    /// How many kill points of `total` a run takes: every one when `CDINSPECT_KILL_STEPS` is
    /// `all` (`Tests/kill-every-step.sh`), else about `sample` spread over the range, always
    /// with the first and the last.
    static func points(_ total: Int, sample: Int) -> [Int] {
        guard total > 0 else { return [] }
        if ProcessInfo.processInfo.environment["CDINSPECT_KILL_STEPS"] == "all" || total <= sample { return Array(1...total) }
        let stride = Double(total - 1) / Double(sample - 1)
        return Array(Set((0..<sample).map { 1 + Int((Double($0) * stride).rounded()) })).sorted()
    }

    /// Counts each file-changing call of a clean run of `arguments` (the run's own effects
    /// are its "after").
    func count(_ arguments: [String], stdin: String?, environment: [String: String] = [:]) throws -> (calls: [String: Int], result: CLI.Result) {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-trace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: trace) }
        let result = try CLI.run(arguments, stdin: stdin, environment: environment, prefix: [strace.path, "-f", "-qq", "-o", trace.path,
                                                                   "-e", "trace=" + Self.fileChangingCalls.joined(separator: ",")],
                                 timeout: 120)
        var calls: [String: Int] = [:]
        for line in try String(contentsOf: trace, encoding: .utf8).split(separator: "\n") {
            // "PID   name(…" (strace pads the pid); a call strace resumed on another line is
            // counted once, at its start.
            guard let open = line.firstIndex(of: "("), let name = line[..<open].split(separator: " ").last.map(String.init) else { continue }
            if Self.fileChangingCalls.contains(name) { calls[name, default: 0] += 1 }
        }
        return (calls, result)
    }

    /// Runs `arguments`, killed on entry to call number `n` of `call`; whether it was killed.
    func kill(_ arguments: [String], stdin: String?, environment: [String: String] = [:], call: String, at n: Int) throws -> Bool {
        let result = try CLI.run(arguments, stdin: stdin, environment: environment,
                                 prefix: [strace.path, "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(call)",
                                          "-e", "inject=\(call):signal=SIGKILL:when=\(n)"],
                                 timeout: 120)
        return result.signaled || result.status == 128 + SIGKILL
    }
}

extension KillHarness {
    /// What a run with one failing system call did: its result, the file the failing call was
    /// on (strace's `-y` names it), and every file a sync or write succeeded on.
    struct FailedRun {
        let result: CLI.Result
        let failedOn: String?
        let succeededOn: Set<String>
    }

    /// Runs `arguments` with call number `n` of `call` failing with `error` (`EIO`, `ENOSPC`),
    /// as a failing disk would (`strace -e inject=SYSCALL:error=E:when=N`).
    func fail(_ arguments: [String], stdin: String?, environment: [String: String] = [:], call: String, at n: Int,
              error: String) throws -> FailedRun {
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-fault-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: trace) }
        let calls = Set(["fsync", "fdatasync", "write", "pwrite64", call]).sorted().joined(separator: ",")
        let result = try CLI.run(arguments, stdin: stdin, environment: environment,
                                 prefix: [strace.path, "-f", "-qq", "-y", "-o", trace.path, "-e", "trace=\(calls)",
                                          "-e", "inject=\(call):error=\(error):when=\(n)"],
                                 timeout: 120)
        var failedOn: String?
        var succeededOn: Set<String> = []
        for line in try String(contentsOf: trace, encoding: .utf8).split(separator: "\n") {
            // "PID   fsync(5</path/of/file>) = 0"; the injected one ends "(INJECTED)".
            guard let open = line.range(of: "<"), let close = line.range(of: ">", range: open.upperBound..<line.endIndex) else { continue }
            let path = String(line[open.upperBound..<close.lowerBound])
            if line.hasSuffix("(INJECTED)") { failedOn = path } else if line.contains(") = ") && !line.contains(") = -1") { succeededOn.insert(path) }
        }
        return FailedRun(result: result, failedOn: failedOn, succeededOn: succeededOn)
    }
}

/// One writing command to kill at every step: how its folder is laid out (once, then copied
/// for every kill point), its arguments in a folder, and what must hold after a kill.
struct KillScenario {
    let name: String
    let arguments: (URL) -> [String]
    var stdin: String? = nil
    /// The store the command writes, in a folder.
    var store: (URL) -> String = { $0.appendingPathComponent("People.sqlite").path }
    /// Extra checks after a kill, given the run's folder: nil when it holds, else what is wrong.
    var check: ((URL) throws -> String?)? = nil
    /// Whether the store must be "before or after" (false: a command that must leave the store
    /// as it was, such as snapshot, whose check is its own).
    var changesStore = true
}

/// Copies a folder and everything in it, hidden entries included.
func copyFolder(_ from: URL, to: URL) throws {
    try FileManager.default.copyItem(at: from, to: to)
}

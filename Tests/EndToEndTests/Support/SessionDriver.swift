import Foundation
import XCTest

/// A `cdinspect STORE` session kept open while the test does other things (another process
/// writing to the store, say), driven through its stdin line by line as a script would.
/// After each batch of commands it sends `help quit` and reads up to that help text, so
/// `run` returns exactly the batch's output.
/// Sendable because the pipes' handlers append on Foundation's reading threads: both buffers
/// are behind `lock`.
final class SessionDriver: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let lock = NSLock()
    private var stdoutBuffer = Data()
    private var stderrBuffer = Data()
    static let sentinel = "Leave the session (Ctrl-D too).\n"

    init(store: String, arguments: [String] = []) throws {
        process.executableURL = CLI.binary
        process.arguments = [store, "--keep-going"] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        var environment = ProcessInfo.processInfo.environment
        environment["CDINSPECT_BUSY_TIMEOUT"] = "0.3"
        process.environment = environment
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.stdoutBuffer.append(data) }
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            self?.lock.withLock { self?.stderrBuffer.append(data) }
        }
        try process.run()
    }

    /// Runs commands (one per line) and returns what they printed on stdout and stderr.
    @discardableResult
    func run(_ commands: String, file: StaticString = #filePath, line: UInt = #line) -> (out: String, err: String) {
        input.fileHandleForWriting.write(Data((commands + "\nhelp quit\n").utf8))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let done: (String, String)? = lock.withLock {
                let text = String(decoding: stdoutBuffer, as: UTF8.self)
                guard let range = text.range(of: "quit\n  " + SessionDriver.sentinel) else { return nil }
                let err = String(decoding: stderrBuffer, as: UTF8.self)
                stdoutBuffer = Data(text[range.upperBound...].utf8)
                stderrBuffer = Data()
                return (String(text[..<range.lowerBound]), err)
            }
            if let done { return (done.0, done.1) }
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTFail("the session did not answer: \(commands)", file: file, line: line)
        return ("", "")
    }

    /// Ends the session (end of input) and returns its exit status.
    func finish() throws -> Int32 {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// The store as another process sees it, through the sqlite3 shell.
enum SQLiteShell {
    @discardableResult
    static func run(_ store: String, _ sql: String) throws -> String {
        let result = try CLI.run([store, sql], executable: URL(fileURLWithPath: "/usr/bin/sqlite3"))
        guard result.status == 0 else {
            throw NSError(domain: "sqlite3", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs each statement in its own transaction and leaves every frame in the `-wal`: the
    /// shell does not checkpoint when it closes, as an app killed mid-run does not.
    static func commitLeavingWAL(_ store: String, _ statements: [String]) throws {
        let shell = URL(fileURLWithPath: "/usr/bin/sqlite3")
        let result = try CLI.run([store, ".dbconfig no_ckpt_on_close on"] + statements, executable: shell)
        guard result.status == 0 else {
            throw NSError(domain: "sqlite3", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
    }

    /// Reads without writing anything (no checkpoint, the WAL stays as it is).
    static func read(_ store: String, _ sql: String) throws -> String {
        try run("file:\(store)?mode=ro", sql)
    }
}

/// Another process holding a store's write lock: a sqlite3 shell inside `BEGIN EXCLUSIVE`,
/// until `release`.
final class StoreLock {
    private let holder = Process()
    private let input = Pipe()

    init(_ store: String) throws {
        let output = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["sqlite3", store]
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        input.fileHandleForWriting.write(Data("BEGIN EXCLUSIVE; SELECT 'locked';\n".utf8))
        // Wait until the shell holds the lock.
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
    }

    /// Ends the shell's input, which ends its transaction, and waits for it to exit.
    func release() throws {
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
    }

    deinit {
        if holder.isRunning { holder.terminate() }
    }
}

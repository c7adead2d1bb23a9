import Foundation
import XCTest

/// A `cdinspect STORE` session kept open while the test does other things (another process
/// writing to the store, say), driven through its stdin line by line as a script would.
/// After each batch of commands it sends `help quit` and reads up to that help text, so
/// `run` returns exactly the batch's output. Started with `posix_spawn`.
///
/// Both output pipes are read on the calling thread with poll(2): once the help text has
/// arrived on stdout, whatever the batch wrote to stderr is already in the stderr pipe (the
/// session wrote it first), so draining that pipe then gets all of it. Reading the two pipes
/// on two threads lost that order, and an error line could arrive after its batch returned.
final class SessionDriver: @unchecked Sendable {
    private let process: ChildProcess
    private var input: Int32
    private let output: Int32
    private let errors: Int32
    private var stdoutBuffer = Data()
    private var stderrBuffer = Data()
    private var ended: Int32?
    static let sentinel = "Leave the session (Ctrl-D too).\n"

    init(store: String, arguments: [String] = []) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["CDINSPECT_BUSY_TIMEOUT"] = "0.3"
        environment["NO_COLOR"] = "1"
        let toChild = try ChildProcess.makePipe(), fromChild = try ChildProcess.makePipe(), errors = try ChildProcess.makePipe()
        process = try ChildProcess([CLI.binary.path, store, "--keep-going"] + arguments, environment: environment, files: [:],
                                   descriptors: [0: toChild.read, 1: fromChild.write, 2: errors.write])
        for end in [toChild.read, fromChild.write, errors.write] { close(end) }
        input = toChild.write
        output = fromChild.read
        self.errors = errors.read
        // A session that ends before reading all its input must not end the test with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
    }

    private func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count, input >= 0 {
            let written = bytes.withUnsafeBytes { Foundation.write(input, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Reads what `descriptor` has into `buffer`, waiting up to `milliseconds` for it; false
    /// when nothing came (or the pipe is at its end).
    private func readAvailable(_ descriptor: Int32, into buffer: inout Data, waiting milliseconds: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&request, 1, milliseconds)
        guard ready > 0, request.revents & Int16(POLLIN | POLLHUP) != 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// Runs commands (one per line) and returns what they printed on stdout and stderr.
    @discardableResult
    func run(_ commands: String, file: StaticString = #filePath, line: UInt = #line) -> (out: String, err: String) {
        write(commands + "\nhelp quit\n")
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            _ = readAvailable(errors, into: &stderrBuffer, waiting: 0)
            _ = readAvailable(output, into: &stdoutBuffer, waiting: 10)
            let text = String(decoding: stdoutBuffer, as: UTF8.self)
            guard let range = text.range(of: "quit\n  " + SessionDriver.sentinel) else { continue }
            while readAvailable(errors, into: &stderrBuffer, waiting: 0) {}
            let err = String(decoding: stderrBuffer, as: UTF8.self)
            stdoutBuffer = Data(text[range.upperBound...].utf8)
            stderrBuffer = Data()
            return (String(text[..<range.lowerBound]), err)
        }
        XCTFail("the session did not answer: \(commands)", file: file, line: line)
        return ("", "")
    }

    /// Ends the session (end of input) and returns its exit status.
    func finish() throws -> Int32 {
        if input >= 0 {
            close(input)
            input = -1
        }
        // What the session still prints is read, so that it never waits on a full pipe.
        while readAvailable(output, into: &stdoutBuffer, waiting: 100) || readAvailable(errors, into: &stderrBuffer, waiting: 0) {}
        let status = process.wait().status
        ended = status
        return status
    }

    deinit {
        if input >= 0 { close(input) }
        close(output)
        close(errors)
        if ended == nil {
            kill(process.pid, SIGKILL)
            _ = process.wait()
        }
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
    private let holder: RunningChild

    init(_ store: String) throws {
        holder = try RunningChild(["/usr/bin/sqlite3", store])
        holder.write("BEGIN EXCLUSIVE; SELECT 'locked';\n")
        // Wait until the shell holds the lock.
        holder.output.expect("locked")
    }

    /// Ends the shell's input, which ends its transaction, and waits for it to exit.
    func release() throws {
        holder.closeInput()
        holder.wait()
    }
}

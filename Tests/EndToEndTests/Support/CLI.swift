import Foundation
import XCTest

/// Runs the built `cdinspect` (and the example generator) as a user would, capturing output.
enum CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        /// The process ended on a signal (a crash: SIGILL from a Swift trap, SIGSEGV, SIGABRT).
        var signaled = false
    }

    static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        fatalError("no .xctest bundle")
        #else
        return Bundle.main.bundleURL
        #endif
    }

    /// The `cdinspect` under test: this build's, or `CDINSPECT_BINARY` (`.ci/release` runs the
    /// suite again on the release build, whose REPL edits lines with libedit).
    static var binary: URL {
        if let override = ProcessInfo.processInfo.environment["CDINSPECT_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return productsDirectory.appendingPathComponent("cdinspect")
    }
    static var generator: URL { productsDirectory.appendingPathComponent("cdi-example-store") }

    @discardableResult
    /// `timeout`: the process is killed (SIGKILL, so `signaled`) if it runs longer: a hang.
    /// Started with `posix_spawn` and driven with poll(2) on this thread alone, so that tests
    /// may run it from many threads at once (Foundation's `Process` faulted when they did).
    static func run(_ arguments: [String], stdin: String? = nil, executable: URL = binary,
                    environment: [String: String] = [:], prefix: [String] = [], timeout: TimeInterval? = nil) throws -> Result {
        let argv = prefix.isEmpty ? [executable.path] + arguments : prefix + [executable.path] + arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        let input = try ChildProcess.makePipe(), output = try ChildProcess.makePipe(), errors = try ChildProcess.makePipe()
        let child: ChildProcess
        do {
            child = try ChildProcess(argv, environment: env, files: [:], descriptors: [0: input.read, 1: output.write, 2: errors.write])
        } catch {
            for end in [input.read, input.write, output.read, output.write, errors.read, errors.write] { close(end) }
            throw error
        }
        for end in [input.read, output.write, errors.write] { close(end) }
        // A process that exits before reading all its input must not end this one with
        // SIGPIPE: the write fails instead, and the rest of the input is dropped.
        signal(SIGPIPE, SIG_IGN)
        let pending = Array((stdin ?? "").utf8)
        var written = 0
        var writer: Int32 = input.write
        if pending.isEmpty {
            close(writer)
            writer = -1
        } else {
            _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
        }
        var collected: [Int32: [UInt8]] = [output.read: [], errors.read: []]
        var open: Set<Int32> = [output.read, errors.read]
        let deadline = timeout.map { Date(timeIntervalSinceNow: $0) }
        var killed = false
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !open.isEmpty {
            var watched = open.sorted().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if writer >= 0 { watched.append(pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)) }
            var wait: Int32 = -1
            if let deadline, !killed {
                let left = deadline.timeIntervalSinceNow
                if left <= 0 {
                    kill(child.pid, SIGKILL)
                    killed = true
                } else {
                    wait = Int32(min(left * 1000 + 1, 1_000))
                }
            }
            let ready = Foundation.poll(&watched, nfds_t(watched.count), wait)
            if ready < 0 && errno == EINTR { continue }
            for entry in watched where entry.revents != 0 {
                if entry.fd == writer {
                    let count = pending.withUnsafeBytes { Foundation.write(writer, $0.baseAddress! + written, pending.count - written) }
                    if count > 0 { written += count }
                    if (count < 0 && errno != EINTR && errno != EAGAIN) || written == pending.count {
                        close(writer)
                        writer = -1
                    }
                    continue
                }
                let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[entry.fd]! += chunk[0..<count]
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    close(entry.fd)
                    open.remove(entry.fd)
                }
            }
        }
        if writer >= 0 { close(writer) }
        let ending = child.waitForEnding()
        return Result(status: ending.status, stdout: String(decoding: collected[output.read] ?? [], as: UTF8.self),
                      stderr: String(decoding: collected[errors.read] ?? [], as: UTF8.self),
                      signaled: ending.signal != 0)
    }

    static func json(_ arguments: [String]) throws -> Any {
        let result = try run(arguments)
        guard result.status == 0 else {
            throw NSError(domain: "cdinspect", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }
}

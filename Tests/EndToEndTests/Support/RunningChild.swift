import Foundation

/// A child process the test talks to while it runs: its standard input a pipe the test
/// writes to, its output and errors read by a thread each as they arrive. Started through
/// `ChildProcess` (posix_spawn), never Foundation's `Process`, which faulted when tests
/// started processes from several threads at once.
final class RunningChild: @unchecked Sendable {
    let child: ChildProcess
    var pid: pid_t { child.pid }
    /// Everything the child wrote, as it arrives.
    let output = OutputBuffer(), errors = OutputBuffer()
    private var input: Int32
    private let readers = DispatchGroup()
    private let lock = NSLock()
    private var ending: ChildProcess.Ending?

    /// `onOutput` sees each piece of standard output as it is read, before `output` has it.
    init(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
         onOutput: (@Sendable (Data) -> Void)? = nil) throws {
        let stdin = try ChildProcess.makePipe(), stdout = try ChildProcess.makePipe(), stderr = try ChildProcess.makePipe()
        do {
            child = try ChildProcess(arguments, environment: environment, files: [:],
                                     descriptors: [0: stdin.read, 1: stdout.write, 2: stderr.write])
        } catch {
            for end in [stdin.read, stdin.write, stdout.read, stdout.write, stderr.read, stderr.write] { close(end) }
            throw error
        }
        for end in [stdin.read, stdout.write, stderr.write] { close(end) }
        input = stdin.write
        // A child that exits before reading its input must not end the test with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        read(stdout.read, into: output, onOutput)
        read(stderr.read, into: errors, nil)
    }

    private func read(_ descriptor: Int32, into buffer: OutputBuffer, _ each: (@Sendable (Data) -> Void)?) {
        readers.enter()
        let thread = Thread { [readers] in
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                each?(Data(chunk[0..<count]))
                buffer.append(chunk[0..<count])
            }
            close(descriptor)
            readers.leave()
        }
        thread.start()
    }

    /// Writes to the child's standard input (all of it, retrying after a signal).
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var written = 0
        lock.withLock {
            guard input >= 0 else { return }
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { Foundation.write(input, $0.baseAddress! + written, bytes.count - written) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                written += count
            }
        }
    }

    /// Ends the child's standard input.
    func closeInput() {
        lock.withLock {
            if input >= 0 { close(input) }
            input = -1
        }
    }

    /// Waits for the child to end and for its output to be read; its exit status (128 + N
    /// after signal N).
    @discardableResult
    func wait() -> Int32 {
        let ended = lock.withLock { ending } ?? child.waitForEnding()
        lock.withLock { ending = ended }
        readers.wait()
        return ended.status
    }

    /// The exit status once the child ends within `timeout` seconds; nil if it is still running.
    func exitStatus(timeout: TimeInterval = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let ended = lock.withLock({ ending }) ?? child.pollEnding() {
                lock.withLock { ending = ended }
                readers.wait()
                return ended.status
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    func kill(_ signal: Int32) { _ = Foundation.kill(pid, signal) }

    deinit {
        closeInput()
        if lock.withLock({ ending }) == nil && child.pollEnding() == nil {
            _ = Foundation.kill(pid, SIGKILL)
            _ = child.waitForEnding()
        }
    }
}

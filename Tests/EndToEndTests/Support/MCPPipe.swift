import Foundation
import XCTest

/// `cdinspect mcp` on pipes, as a client drives it: messages go in when the test says, and
/// every line that comes out is kept with the time it came, so a test can tell what was
/// answered, when, and how often.
final class MCPPipe: @unchecked Sendable {
    let process: ChildProcess
    private var input: Int32
    private let lock = NSCondition()
    // Read and written only while holding `lock`.
    private var lines: [(at: Date, text: String)] = []
    /// The messages with an id, parsed once as they come.
    private var byID: [Int: [[String: Any]]] = [:]
    /// The bytes of each answer's line as it came, newline left out.
    private var lineBytes: [Int: Int] = [:]
    private var closed = false

    init(_ arguments: [String]) throws {
        // The test's ends never reach the child: its input ends when the test closes it.
        let toChild = try ChildProcess.makePipe(), fromChild = try ChildProcess.makePipe()
        process = try ChildProcess([CLI.binary.path, "mcp"] + arguments, environment: ProcessInfo.processInfo.environment,
                                   files: [2: ProcessInfo.processInfo.environment["CDINSPECT_MCP_STDERR"] ?? "/dev/null"],
                                   descriptors: [0: toChild.read, 1: fromChild.write])
        close(toChild.read)
        close(fromChild.write)
        input = toChild.write
        let output = fromChild.read
        let thread = Thread { [self] in readLines(output) }
        thread.start()
    }

    private func readLines(_ descriptor: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            // Only the new bytes are searched for line ends: a 4 MiB answer comes in many reads.
            var start = 0
            for i in 0..<count where chunk[i] == 10 {
                pending += chunk[start..<i]
                start = i + 1
                let line = String(decoding: pending, as: UTF8.self)
                pending.removeAll(keepingCapacity: true)
                let message = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                lock.withLock {
                    lines.append((Date(), line))
                    if let message, let id = message["id"] as? Int {
                        byID[id, default: []].append(message)
                        lineBytes[id] = line.utf8.count
                    }
                    lock.broadcast()
                }
            }
            pending += chunk[start..<count]
        }
        close(descriptor)
        lock.withLock {
            if !pending.isEmpty { lines.append((Date(), String(decoding: pending, as: UTF8.self))) }
            closed = true
            lock.broadcast()
        }
    }

    func send(_ message: [String: Any]) throws {
        var data = try JSONSerialization.data(withJSONObject: message)
        data.append(10)
        try write(data)
    }

    func write(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(input, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw ChildProcess.failure("write to the server") }
                offset += written
            }
        }
    }

    func request(_ id: Int, _ method: String, _ params: [String: Any] = [:]) throws {
        try send(["jsonrpc": "2.0", "id": id, "method": method, "params": params])
    }

    func call(_ id: Int, _ tool: String, _ arguments: [String: Any] = [:]) throws {
        try request(id, "tools/call", ["name": tool, "arguments": arguments])
    }

    func handshake() throws {
        try request(0, "initialize", ["protocolVersion": "2025-06-18", "capabilities": [String: Any](),
                                      "clientInfo": ["name": "tests", "version": "1"]])
        try send(["jsonrpc": "2.0", "method": "notifications/initialized"])
        XCTAssertNotNil(try answer(0, within: 10))
    }

    /// Every line so far, as the server wrote it.
    var output: [(at: Date, text: String)] { lock.withLock { lines } }

    /// The messages with this id so far.
    /// The size of the line that answered `id`, as it went over the pipe.
    func bytesOfAnswer(_ id: Int) -> Int? {
        lock.withLock { lineBytes[id] }
    }

    func answers(_ id: Int) -> [[String: Any]] {
        lock.withLock { byID[id] ?? [] }
    }

    /// The answer to `id`, waiting up to `seconds` for it; nil when none came.
    func answer(_ id: Int, within seconds: Double) throws -> [String: Any]? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            if let found = answers(id).first { return found }
            let waited: Bool = lock.withLock { closed ? false : lock.wait(until: deadline) }
            if !waited { return answers(id).first }
        }
    }

    /// A tool call's text (the first content item) and whether it is an error.
    func toolText(_ id: Int, within seconds: Double = 30) throws -> (text: String, isError: Bool) {
        let reply = try XCTUnwrap(try answer(id, within: seconds), "no answer to \(id)")
        let result = try XCTUnwrap(reply["result"] as? [String: Any], "\(reply)")
        let content = try XCTUnwrap(result["content"] as? [[String: Any]])
        return (content.first?["text"] as? String ?? "", result["isError"] as? Bool ?? false)
    }

    /// Processor time the server has used, in seconds (Linux's /proc; nil elsewhere).
    var processorSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Closes the server's input and waits for it to end: its status, peak memory, and
    /// the seconds it took after the input closed.
    /// Closes the server's input and waits for it to end. A server still running after
    /// `guardSeconds` has hung: it is killed, and its status is that of SIGKILL (137), so the
    /// test fails rather than waits forever; the guard is no measure of speed.
    func finish(guardSeconds: TimeInterval = 120) -> (status: Int32, peakMemory: Int) {
        close(input)
        input = -1
        let deadline = Date().addingTimeInterval(guardSeconds)
        var ended = process.pollEnding()
        while ended == nil, Date() < deadline {
            usleep(20_000)
            ended = process.pollEnding()
        }
        if ended == nil {
            kill(process.pid, SIGKILL)
            ended = process.waitForEnding()
        }
        lock.withLock { while !closed { lock.wait() } }
        return (ended?.status ?? 137, ended?.peakMemory ?? 0)
    }

    deinit {
        if input >= 0 { close(input) }
    }
}

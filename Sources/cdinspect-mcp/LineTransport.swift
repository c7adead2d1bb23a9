import Foundation
import Logging
import MCP
import MCPLines

/// Standard input and output for the MCP server, written for what a hostile client sends
/// (issue: read-only means read-only). The SDK's stdio transport looked for a newline from
/// the start of the pending bytes after every read (a 2 MB line took 14 s, 4 MB never
/// answered), and wrote a message in pieces with a pause between them in which another
/// message could start (answers spliced into each other). Here:
///
/// - a line is read in time linear in its length, and one longer than `maximumLine` is
///   answered with -32600 and skipped, never held whole (`LineSplitter`);
/// - each message is written whole under one lock, by the server and by the reader alike;
/// - what the server cannot answer by the specification is answered here: a line that is not
///   JSON (-32700, id null), a request whose id is null (-32600), a tool call whose
///   `arguments` is not an object (-32602) (`LineAdmission`);
/// - at the end of input, `drained` waits until every request read has been answered (or
///   cancelled by the client), so a client that closes its side with calls in flight still
///   gets every answer.
actor LineTransport: Transport {
    static let maximumLine = 4 << 20

    nonisolated let logger = Logger(label: "cdinspect.mcp.stdio")
    private let stream: AsyncThrowingStream<Data, Swift.Error>
    private let continuation: AsyncThrowingStream<Data, Swift.Error>.Continuation
    private let ledger = Ledger()
    private var reader: Thread?

    init() {
        (stream, continuation) = AsyncThrowingStream.makeStream()
    }

    func connect() async throws {
        let continuation = self.continuation
        let ledger = self.ledger
        let thread = Thread { LineTransport.readLoop(continuation, ledger) }
        thread.stackSize = 1 << 20
        thread.start()
        reader = thread
    }

    func disconnect() async { continuation.finish() }

    func send(_ message: Data) async throws {
        // The answer to initialize says which extensions the server offers (`ViewSupport`).
        let data = ViewSupport.shared.patched(message)
        // The last guard of the byte cap: a message past it (an error quoting megabytes it was
        // given) goes out as an error saying so, never as a line the client cannot take.
        if data.count > MCPTools.byteCap + MCPTools.envelope,
           let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any], json["method"] == nil {
            let id = json["id"]
            Output.error(id: id, code: -32603, "the reply would be larger than \(MCPTools.byteCap >> 20) MiB, the server's cap; ask for less")
            if let id, !(id is NSNull), let small = try? JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id]) {
                ledger.answered(small)
            }
            return
        }
        Output.write(data)
        ledger.answered(data)
    }

    func receive() -> AsyncThrowingStream<Data, Swift.Error> { stream }

    /// Returns once input has ended and every request read from it has been answered, or
    /// after `seconds`.
    nonisolated func drained(within seconds: Double) {
        ledger.waitUntilDrained(within: seconds)
    }

    // MARK: Reading

    private static func readLoop(_ continuation: AsyncThrowingStream<Data, Swift.Error>.Continuation, _ ledger: Ledger) {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var splitter = LineSplitter(maximumLine: maximumLine)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            chunk.withUnsafeBufferPointer { read in
                splitter.feed(UnsafeBufferPointer(rebasing: read[0..<count])) { line in
                    switch line {
                    case .overlong:
                        Output.error(id: nil, code: -32600, "Invalid Request: a message may be at most \(maximumLine >> 20) MiB")
                    case .message(let bytes):
                        if let message = admit(bytes, ledger) { continuation.yield(message) }
                    }
                }
            }
        }
        ledger.inputEnded()
        continuation.finish()
    }

    /// The message to hand to the server, or nil when it was answered here (`LineAdmission`).
    private static func admit(_ bytes: [UInt8], _ ledger: Ledger) -> Data? {
        switch LineAdmission.admit(bytes) {
        case .blank:
            return nil
        case let .error(id, code, message):
            Output.error(id: id?.value, code: code, message)
            return nil
        case let .message(data, id, initialize, cancelled):
            if let initialize { ViewSupport.shared.read(initialize: initialize) }
            if let cancelled { ledger.cancelled(cancelled) }
            if let id { ledger.read(id) }
            return data
        }
    }
}

/// The requests read and not yet answered.
private final class Ledger: @unchecked Sendable {
    private let condition = NSCondition()
    private var open: Set<LineAdmission.RequestID> = []
    private var ended = false

    func read(_ id: LineAdmission.RequestID) {
        condition.withLock { _ = open.insert(id) }
    }

    func cancelled(_ id: LineAdmission.RequestID) {
        condition.withLock {
            open.remove(id)
            condition.broadcast()
        }
    }

    func answered(_ message: Data) {
        guard let json = try? JSONSerialization.jsonObject(with: message) as? [String: Any], json["method"] == nil,
              let id = json["id"].flatMap(LineAdmission.RequestID.init) else { return }
        condition.withLock {
            open.remove(id)
            condition.broadcast()
        }
    }

    func inputEnded() {
        condition.withLock {
            ended = true
            condition.broadcast()
        }
    }

    func waitUntilDrained(within seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.withLock {
            while !(ended && open.isEmpty) {
                guard condition.wait(until: deadline) else { return }
            }
        }
    }
}

/// Standard output, one whole message at a time.
private enum Output {
    private static let lock = NSLock()

    static func write(_ message: Data) {
        var bytes = message
        bytes.append(10)
        lock.withLock {
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = Foundation.write(1, base + offset, raw.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && (errno == EINTR || errno == EAGAIN) {
                        var wait = pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&wait, 1, 100)
                    } else {
                        return  // the reader is gone: nothing more can be said
                    }
                }
            }
        }
    }

    /// A JSON-RPC error response; `id` nil for null.
    static func error(id: Any?, code: Int, _ message: String) {
        let object: [String: Any] = ["jsonrpc": "2.0", "id": id ?? NSNull(), "error": ["code": code, "message": message]]
        if let data = try? JSONSerialization.data(withJSONObject: object) { write(data) }
    }
}

import Foundation
import Logging
import MCP

/// Standard input and output for the MCP server, written for what a hostile client sends
/// (issue: read-only means read-only). The SDK's stdio transport looked for a newline from
/// the start of the pending bytes after every read (a 2 MB line took 14 s, 4 MB never
/// answered), and wrote a message in pieces with a pause between them in which another
/// message could start (answers spliced into each other). Here:
///
/// - a line is read in time linear in its length, and one longer than `maximumLine` is
///   answered with -32600 and skipped, never held whole;
/// - each message is written whole under one lock, by the server and by the reader alike;
/// - what the server cannot answer by the specification is answered here: a line that is not
///   JSON (-32700, id null), a request whose id is null (-32600), a tool call whose
///   `arguments` is not an object (-32602);
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
        var line: [UInt8] = []
        var overlong = false
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var start = 0
            for i in 0..<count where chunk[i] == 10 {
                if !overlong { line.append(contentsOf: chunk[start..<i]) }
                if overlong {
                    Output.error(id: nil, code: -32600, "Invalid Request: a message may be at most \(maximumLine >> 20) MiB")
                } else if let message = admit(line, ledger) {
                    continuation.yield(message)
                }
                line.removeAll(keepingCapacity: line.count < 1 << 16)
                overlong = false
                start = i + 1
            }
            if !overlong {
                line.append(contentsOf: chunk[start..<count])
                if line.count > maximumLine {
                    overlong = true
                    line = []
                }
            }
        }
        ledger.inputEnded()
        continuation.finish()
    }

    /// The message to hand to the server, or nil when it was answered here.
    private static func admit(_ bytes: [UInt8], _ ledger: Ledger) -> Data? {
        let data = Data(bytes)
        guard !data.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) else { return nil }
        guard let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            Output.error(id: nil, code: -32700, "Parse error: the message is not JSON")
            return nil
        }
        guard let message = json as? [String: Any] else {
            if json is [Any] { return data }  // a batch: the server answers each member
            Output.error(id: nil, code: -32600, "Invalid Request: a message is a JSON object")
            return nil
        }
        guard message["method"] is String else { return data }  // a response
        if message["method"] as? String == "initialize" { ViewSupport.shared.read(initialize: message) }
        if message["method"] as? String == "notifications/cancelled" {
            // A cancelled request is not answered (the specification says so): stop waiting.
            if let id = (message["params"] as? [String: Any])?["requestId"] { ledger.cancelled(id) }
            return data
        }
        if let id = message["id"] {
            guard id is String || id is NSNumber else {
                Output.error(id: nil, code: -32600, "Invalid Request: a request's id is a string or a number")
                return nil
            }
            if message["method"] as? String == "tools/call" {
                let params = message["params"] as? [String: Any]
                if let arguments = params?["arguments"], !(arguments is [String: Any]) {
                    Output.error(id: id, code: -32602, "Invalid params: 'arguments' is an object of argument names and values")
                    return nil
                }
            }
            ledger.read(id)
        }
        return data
    }
}

/// The requests read and not yet answered.
private final class Ledger: @unchecked Sendable {
    private let condition = NSCondition()
    private var open: Set<String> = []
    private var ended = false

    static func key(_ id: Any) -> String { (id as? String).map { "s:" + $0 } ?? "n:\(id)" }

    func read(_ id: Any) {
        condition.withLock { _ = open.insert(Self.key(id)) }
    }

    func cancelled(_ id: Any) {
        condition.withLock {
            open.remove(Self.key(id))
            condition.broadcast()
        }
    }

    func answered(_ message: Data) {
        guard let json = try? JSONSerialization.jsonObject(with: message) as? [String: Any], json["method"] == nil,
              let id = json["id"], !(id is NSNull) else { return }
        condition.withLock {
            open.remove(Self.key(id))
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

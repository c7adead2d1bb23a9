import Foundation
import ManagedStore
import NIOCore
import NIOHTTP1
import NIOPosix
import WebView

/// swift-nio's HTTP/1.1 server on 127.0.0.1, carrying requests to the `Site` and its responses
/// back. NIO parses HTTP (llhttp): a request line or headers past its 80 KiB limit, or
/// anything malformed, is answered 400 and the connection closed by its error handler. Here:
/// a body past 2 MiB is refused (413, `IncomingRequest`), a connection idle for a minute is
/// closed, each request runs on a thread of its own (a page blocks on SQLite) in a
/// `CancellationScope` that the client's going away cancels, and a streamed body is written
/// a piece at a time, each waiting for the last to be sent.
final class HTTPServer: @unchecked Sendable {
    static let idleSeconds: Int64 = 60
    static let maximumInFlight = 128

    let site: Site
    private let channel: Channel
    private let group: MultiThreadedEventLoopGroup

    /// Binds 127.0.0.1:`port` (0: a free one) and makes the site once the port is known.
    init(port: Int, site make: (Int) throws -> Site) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let holder = SiteHolder()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandlers([IdleStateHandler(readTimeout: .seconds(Self.idleSeconds)),
                                                                     RequestHandler(holder: holder)])
                }
            }
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 1)
        do {
            channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw BindError(port: port, underlying: "\(error)")
        }
        guard let bound = channel.localAddress?.port else {
            throw BindError(port: port, underlying: "the system gave no port")
        }
        site = try make(bound)
        holder.site = site
    }

    /// Blocks until the server's channel closes (the process ends on Ctrl-C first).
    func wait() {
        try? channel.closeFuture.wait()
    }

    struct BindError: Error, CustomStringConvertible {
        let port: Int
        let underlying: String
        var description: String {
            port == 0 ? "cannot listen on 127.0.0.1: \(underlying)"
                : "cannot listen on 127.0.0.1:\(port) (\(underlying)); give another --port, or none for a free one"
        }
    }
}

/// The site, set once the port is bound (the gate needs the port).
final class SiteHolder: @unchecked Sendable {
    var site: Site?
    let inFlight = ManagedAtomicCounter()
}

/// A count several threads change.
final class ManagedAtomicCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add(_ n: Int) -> Int { lock.withLock { value += n; return value } }
}

/// One connection's requests: gathered (head, body within the bound), run on a thread of their
/// own, answered in order (NIO's pipelining handler holds a next request until the answer to
/// the one before is written).
final class RequestHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let holder: SiteHolder
    private var head: HTTPRequestHead?
    private var incoming = IncomingRequest()
    /// The running request's scope, cancelled when the client goes.
    private var scope: CancellationScope?

    init(holder: SiteHolder) {
        self.holder = holder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            incoming.start(method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) })
        case .body(var buffer):
            incoming.append(buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .end:
            guard let head, let finished = incoming.finish() else { return }
            self.head = nil
            let channel = context.channel
            let request: WebRequest
            switch finished {
            case .success(let read): request = read
            case .failure(let refusal):
                Self.send(refusal.response, to: channel, head: head, keepAlive: false)
                return
            }
            guard let site = holder.site else { return }
            guard holder.inFlight.add(1) <= HTTPServer.maximumInFlight else {
                _ = holder.inFlight.add(-1)
                Self.send(WebResponse.text("The server is busy; try again.", status: 503), to: channel, head: head, keepAlive: false)
                return
            }
            let scope = CancellationScope()
            self.scope = scope
            let counter = holder.inFlight
            let keepAlive = head.isKeepAlive
            let thread = Thread {
                defer { _ = counter.add(-1) }
                scope.run {
                    let response = site.respond(request, scope: scope)
                    Self.send(response, to: channel, head: head, keepAlive: keepAlive, scope: scope)
                }
            }
            // A predicate of 40,000 terms is parsed by recursive descent, as in the MCP server.
            thread.stackSize = 64 << 20
            thread.start()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        scope?.cancel()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else { context.fireUserInboundEventTriggered(event) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        scope?.cancel()
        context.close(promise: nil)
    }

    /// Writes `response` on `channel` (from any thread): its head, its body (a stream a piece
    /// at a time, each piece sent before the next is made), its end.
    static func send(_ response: WebResponse, to channel: Channel, head request: HTTPRequestHead, keepAlive: Bool,
                     scope: CancellationScope? = nil) {
        var headers = HTTPHeaders()
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        if case .bytes(let bytes) = response.body { headers.replaceOrAdd(name: "Content-Length", value: String(bytes.count)) }
        headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        let status = HTTPResponseStatus(statusCode: response.status)
        channel.write(HTTPServerResponsePart.head(HTTPResponseHead(version: request.version, status: status, headers: headers)), promise: nil)
        let isHead = request.method == .HEAD
        switch response.body {
        case .bytes(let bytes):
            if !isHead, !bytes.isEmpty {
                channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes))), promise: nil)
            }
        case .stream(let write):
            if !isHead {
                let writer = ChannelWriter(channel: channel)
                do { try write(writer) } catch {
                    // The client went, or the store failed mid-answer: the response cannot be
                    // finished well, so the connection ends.
                    scope?.cancel()
                    channel.close(promise: nil)
                    return
                }
            }
        }
        let done = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        if !keepAlive { done.whenComplete { _ in channel.close(promise: nil) } }
    }
}

/// A streamed body's pieces onto the channel: each write waits until it is sent, so a slow
/// client slows the writer rather than filling memory, and throws once the client is gone.
struct ChannelWriter: ResponseWriter {
    let channel: Channel

    func write(_ bytes: [UInt8]) throws {
        guard channel.isActive else { throw ClientGone() }
        guard !bytes.isEmpty else { return }
        do {
            try channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes)))).wait()
        } catch {
            throw ClientGone()
        }
    }
}

import Foundation
import FuzzSupport
import ManagedStore
import NIOCore
import NIOEmbedded
import NIOHTTP1
import WebView

/// Bytes from a browser or anything else that reaches `cdinspect browse`'s port, through the
/// same HTTP stack: swift-nio's server pipeline (llhttp's parser, pipelining, its error
/// handler) in an in-memory channel, each request handed to the web view of a copy of the
/// example store opened with `--write` (edits, Save, Discard), as `cdinspect-browse` hands it
/// over. The token and CSRF token are fixed (`Fixture`), so that the seeds and the dictionary
/// carry a signed-in browser's cookie and forms, and edits and saves are reached. Every
/// request gets a response or the connection is closed; nothing traps or hangs.
final class Fixture: @unchecked Sendable {
    static let port = 4242
    static let token = String(repeating: "ab", count: 32)
    static let csrf = String(repeating: "cd", count: 32)

    let folder = FuzzFiles.scratchFolder("http")
    var site: Site?
    var runs = 0

    /// The site, on a store copied afresh every 500 inputs (saves change it).
    func current() -> Site {
        if runs % 500 == 0 {
            site?.close()
            site = nil
        }
        runs += 1
        if let site { return site }
        let made = LeakCheck.exempt { openSite() }
        site = made
        return made
    }

    /// The web view of a fresh copy of the example store, held by the fixture until the next
    /// copy (so exempt from the leak check: see `LeakCheck`).
    func openSite() -> Site {
        let path = folder + "/People.sqlite"
        FuzzFiles.copyExampleStore(to: path)
        var options = Site.Options(storePath: path, storeOptions: .init(readonly: true))
        options.writes = true
        options.timeLimit = 5
        guard let store = try? PersistentStore(path: path, options: .init(readonly: true)),
              let made = try? Site(options: options, gate: AccessGate(port: Self.port, token: Self.token, csrfToken: Self.csrf), store: store)
        else { fatalError("cannot open the web view of the example store's copy") }
        return made
    }
}

/// A response body read as a client reads it, up to 4 MiB (then the client is gone).
final class Reader: ResponseWriter, @unchecked Sendable {
    var count = 0
    struct Gone: Error {}
    func write(_ bytes: [UInt8]) throws {
        count += bytes.count
        if count > 4 << 20 { throw Gone() }
    }
}

/// One connection's requests, gathered as `cdinspect-browse`'s `RequestHandler` gathers them
/// (`IncomingRequest`: its 2 MiB body bound, its `WebRequest`) and answered in order, but on
/// the channel's own thread.
final class Responder: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let site: Site
    var head: HTTPRequestHead?
    var incoming = IncomingRequest()

    init(site: Site) { self.site = site }

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
            let response: WebResponse
            switch finished {
            case .success(let request):
                let scope = CancellationScope()
                // A live page's stream follows the store until the page goes: here it goes at once.
                if request.path.hasPrefix("/-/events") { scope.cancel() }
                response = site.respond(request, scope: scope)
            case .failure(let refusal):
                response = refusal.response
            }
            var headers = HTTPHeaders()
            for (name, value) in response.headers { headers.add(name: name, value: value) }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: response.status), headers: headers))), promise: nil)
            switch response.body {
            case .bytes(let bytes):
                if !bytes.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil) }
            case .stream(let write):
                try? write(Reader())
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

let fixture = Fixture()

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzDriver.bytes(data, size)
    let channel = EmbeddedChannel()
    do {
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
        try channel.pipeline.syncOperations.addHandler(Responder(site: fixture.current()))
        try channel.writeInbound(ByteBuffer(bytes: bytes))
    } catch {
        // A malformed request: NIO's error handler answered 400 and closed the connection.
    }
    while (try? channel.readOutbound(as: ByteBuffer.self)) != nil {}
    _ = try? channel.finish()
    // A live page that went left its follower closing its store on a thread of its own: the
    // input is over when that has ended, so the leak check sees no store still held by it.
    fixture.site?.live.settle()
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzHTTPRequest_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

/// A response as the site makes it, for whatever server sends it: a status, headers, and a
/// body that is either bytes or written as it is made (a blob read in pieces, the live
/// events), where each write throws once the client has gone, which stops the work.
public struct WebResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    public enum Body: Sendable {
        case bytes([UInt8])
        case stream(@Sendable (ResponseWriter) throws -> Void)
    }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, contentType: String, bytes: [UInt8]) {
        self.init(status: status, headers: [("Content-Type", contentType)], body: .bytes(bytes))
    }

    public static func html(_ page: HTML, status: Int = 200) -> WebResponse {
        WebResponse(status: status, contentType: "text/html; charset=utf-8", bytes: Array(page.text.utf8))
    }

    public static func text(_ text: String, status: Int) -> WebResponse {
        WebResponse(status: status, contentType: "text/plain; charset=utf-8", bytes: Array((text + "\n").utf8))
    }

    public static func json(_ text: String, status: Int = 200) -> WebResponse {
        WebResponse(status: status, contentType: "application/json; charset=utf-8", bytes: Array(text.utf8))
    }

    public static func redirect(to location: String, status: Int = 303) -> WebResponse {
        WebResponse(status: status, headers: [("Location", location)])
    }

    public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
}

/// Where a streamed body goes: each write blocks until the bytes are on their way (so a slow
/// client slows the writer rather than filling memory) and throws when the client is gone.
public protocol ResponseWriter: Sendable {
    func write(_ bytes: [UInt8]) throws
}

/// The client closed the connection while its response was being written.
public struct ClientGone: Error {
    public init() {}
}

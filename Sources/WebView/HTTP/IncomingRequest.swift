/// A request as an HTTP server reads it, part by part (head, pieces of body, end), gathered
/// into a `WebRequest` with the body bounded: whatever server parses the bytes (swift-nio in
/// `cdinspect browse`, the fuzz target's in-memory channel), the site gets the same request.
public struct IncomingRequest: Sendable {
    /// The largest body a request may carry (an edit form is a few hundred bytes).
    public static let maximumBody = 2 << 20

    private var head: (method: String, target: String, headers: [(name: String, value: String)])?
    private var body: [UInt8] = []
    private var tooLarge = false

    public init() {}

    /// A request's head: a new request starts.
    public mutating func start(method: String, target: String, headers: [(name: String, value: String)]) {
        head = (method, target, headers)
        body = []
        tooLarge = false
    }

    /// A piece of its body; past `maximumBody` the body is dropped and the request refused.
    public mutating func append(_ bytes: [UInt8]) {
        guard !tooLarge else { return }
        if body.count + bytes.count > Self.maximumBody {
            tooLarge = true
            body = []
        } else {
            body += bytes
        }
    }

    /// Its end: the request, or the refusal of a body too large; nil when no head came.
    public mutating func finish() -> Result<WebRequest, BodyTooLarge>? {
        guard let head else { return nil }
        self.head = nil
        defer { body = [] }
        if tooLarge { return .failure(BodyTooLarge()) }
        return .success(WebRequest(method: head.method, target: head.target, headers: head.headers, body: body))
    }

    /// A body past `maximumBody`: answered 413 and the connection closed.
    public struct BodyTooLarge: Error, Sendable {
        public var response: WebResponse { WebResponse.text("The request's body is larger than 2 MiB.", status: 413) }
    }
}

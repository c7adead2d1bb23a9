import Foundation

/// Who may use the web view, decided before any page is made (Jupyter Server's model, and
/// Datasette's for changes):
///
/// - the `Host` header (every one of them) names this server on the loopback address or
///   `localhost`, with its port: a page of another site that a DNS rebinding pointed at
///   127.0.0.1 sends its own name and is refused;
/// - the request carries the token printed at start: in the login link once, then in an
///   HttpOnly, SameSite=Strict cookie named after the port (two servers keep two cookies), or
///   as `Authorization: Bearer` for scripts;
/// - a change is a POST from this server's own pages: the form's CSRF token, and a browser's
///   `Sec-Fetch-Site` (or `Origin`) saying the same origin.
public struct AccessGate: Sendable {
    public let token: String
    public let csrfToken: String
    public let port: Int

    public init(port: Int, token: String = AccessGate.randomToken(), csrfToken: String = AccessGate.randomToken()) {
        self.port = port
        self.token = token
        self.csrfToken = csrfToken
    }

    /// 32 random bytes from the system's generator, in hex.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let word: UInt64 = generator.next()
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    public var cookieName: String { "cdinspect-browse-\(port)" }

    /// The address printed at start: the login page with the token, which sets the cookie
    /// and goes on to the store's page.
    public var loginURL: String { "http://127.0.0.1:\(port)/-/login?token=\(token)" }

    /// Why a request is refused before anything else is looked at, or nil.
    public func refusal(_ request: WebRequest) -> WebResponse? {
        let hosts = request.headers("host")
        guard !hosts.isEmpty else { return Refusals.page(400, "No Host header: a browser always sends one.") }
        for host in hosts where !acceptsHost(host) {
            return Refusals.page(403, "This server answers to 127.0.0.1, localhost or [::1] on port \(port) only, not to “\(host)”.")
        }
        return nil
    }

    /// `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT` (names in any case), nothing else.
    func acceptsHost(_ value: String) -> Bool {
        let lowered = value.lowercased()
        return ["127.0.0.1", "localhost", "[::1]"].contains { lowered == "\($0):\(port)" }
    }

    /// Whether the request carries the token: its cookie, or a bearer header.
    public func isAuthenticated(_ request: WebRequest) -> Bool {
        if let authorization = request.header("authorization"), authorization.hasPrefix("Bearer ") {
            return Self.same(String(authorization.dropFirst(7)), token)
        }
        return cookie(request).map { Self.same($0, token) } ?? false
    }

    /// This server's cookie, from the `Cookie` headers.
    func cookie(_ request: WebRequest) -> String? {
        for header in request.headers("cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == cookieName { return parts[1] }
            }
        }
        return nil
    }

    /// `/-/login?token=…`: the cookie, and on to `next` (a path of this server only).
    public func login(_ request: WebRequest) -> WebResponse {
        guard let given = request.query("token"), Self.same(given, token) else {
            return Refusals.page(403, "This link's token is not this server's: open the address cdinspect browse printed when it started.")
        }
        var next = request.query("next") ?? "/"
        if !next.hasPrefix("/") || next.hasPrefix("//") || next.contains("\\") { next = "/" }
        var response = WebResponse.redirect(to: next)
        response.headers.append(("Set-Cookie", "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"))
        return response
    }

    /// Why a change (a POST) is refused, or nil: it must come from this server's own page,
    /// with the page's CSRF token.
    public func changeRefusal(_ request: WebRequest) -> WebResponse? {
        let site = request.header("sec-fetch-site")
        if let site, site != "same-origin", site != "none" {
            return Refusals.page(403, "A change must come from this server's own pages (Sec-Fetch-Site: \(site)).")
        }
        // `Origin: null` comes from a page whose referrer policy hides its origin: trusted only
        // where the browser says the request is from this same origin.
        let sameOrigin = site == "same-origin"
        if let origin = request.header("origin"), !(origin == "null" && sameOrigin),
           !["http://127.0.0.1:\(port)", "http://localhost:\(port)", "http://[::1]:\(port)"].contains(origin.lowercased()) {
            return Refusals.page(403, "A change must come from this server's own pages, not from \(origin).")
        }
        guard let given = request.field("csrf"), Self.same(given, csrfToken) else {
            return Refusals.page(403, "The form's token is missing or is not this server's: reload the page and try again.")
        }
        return nil
    }

    /// Compares in time that does not depend on where the texts differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return difference == 0
    }
}

/// The pages that say no: a status and one sentence, plain, on every refusal.
enum Refusals {
    static func page(_ status: Int, _ why: String) -> WebResponse {
        .html(Layout.bare(title: "\(status) \(statusText(status))", body: "<p class=\"refusal\">\(why)</p>"), status: status)
    }

    static func statusText(_ status: Int) -> String {
        switch status {
        case 400: return "Bad request"
        case 401: return "Not signed in"
        case 403: return "Forbidden"
        case 404: return "Not found"
        case 405: return "Not allowed"
        case 409: return "Conflict"
        case 413: return "Too large"
        case 422: return "Not saved"
        case 500: return "Error"
        case 503: return "Busy"
        default: return ""
        }
    }
}

/// Headers every response carries: a Content-Security-Policy that lets a page load nothing
/// but this server's own stylesheet, script and images (no inline script, no other origin, no
/// frames), no content sniffing, no referrer to another origin, no caching of a store's content, and no CORS
/// header at all.
enum ResponseHeaders {
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static let all: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        // Same-origin: another site learns no address of this one, and a form of this one
        // still sends its own Origin (with no-referrer, a browser sends `Origin: null`).
        ("Referrer-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]

    /// `response` with every header above (a header the response set itself is kept).
    static func added(to response: WebResponse) -> WebResponse {
        var response = response
        for (name, value) in all where response.header(name) == nil { response.headers.append((name, value)) }
        return response
    }
}

import Foundation
import XCTest
@testable import WebView

/// What the web view refuses, before any page: a request without the token, another site's
/// Host (DNS rebinding), a change from another origin or without the form's token, a change
/// to a read-only view, a malformed or escaping path; and the headers every answer carries.
final class WebSecurityTests: XCTestCase {
    func testEveryRequestNeedsTheTokenAndTheLoginSetsAStrictCookie() throws {
        let site = try SiteHarness()
        let host = [("Host", "127.0.0.1:\(SiteHarness.port)")]
        for path in ["/", "/Person", "/Person/p1", "/index.json", "/model", "/-/static/app.css", "/-/static/app.js", "/-/events", "/nothing"] {
            XCTAssertEqual(site.get(path, headers: host).status, 401, path)
        }
        // A wrong cookie, a wrong bearer, a wrong login token.
        XCTAssertEqual(site.get("/", headers: host + [("Cookie", "cdinspect-browse-\(SiteHarness.port)=nope")]).status, 401)
        XCTAssertEqual(site.get("/", headers: host + [("Cookie", "cdinspect-browse-9999=\(SiteHarness.token)")]).status, 401)
        XCTAssertEqual(site.get("/", headers: host + [("Authorization", "Bearer nope")]).status, 401)
        XCTAssertEqual(site.get("/-/login?token=nope", headers: host).status, 403)
        XCTAssertEqual(site.get("/", headers: host + [("Authorization", "Bearer \(SiteHarness.token)")]).status, 200)

        let login = site.get("/-/login?token=\(SiteHarness.token)&next=%2FPerson", headers: host)
        XCTAssertEqual(login.status, 303)
        XCTAssertEqual(login.header("Location"), "/Person")
        XCTAssertEqual(login.header("Set-Cookie"), "cdinspect-browse-\(SiteHarness.port)=\(SiteHarness.token); Path=/; HttpOnly; SameSite=Strict")
        // `next` leads to this server only.
        for next in ["https://evil.example/", "//evil.example/", "/\\evil.example"] {
            let elsewhere = site.get("/-/login?token=\(SiteHarness.token)&next=\(QueryItems.encode(next))", headers: host)
            XCTAssertEqual(elsewhere.header("Location"), "/", next)
        }
    }

    func testTheHostMustBeThisServerOnLoopback() throws {
        let site = try SiteHarness()
        let cookie = ("Cookie", "cdinspect-browse-\(SiteHarness.port)=\(SiteHarness.token)")
        for host in ["127.0.0.1:\(SiteHarness.port)", "localhost:\(SiteHarness.port)", "LOCALHOST:\(SiteHarness.port)", "[::1]:\(SiteHarness.port)"] {
            XCTAssertEqual(site.get("/", headers: [("Host", host), cookie]).status, 200, host)
        }
        for host in ["evil.example", "evil.example:\(SiteHarness.port)", "127.0.0.1", "127.0.0.1:80", "localhost.evil.example:\(SiteHarness.port)",
                     "10.0.0.1:\(SiteHarness.port)", "127.0.0.2:\(SiteHarness.port)"] {
            XCTAssertEqual(site.get("/", headers: [("Host", host), cookie]).status, 403, host)
            // The login page too: a rebinding page cannot even sign in.
            XCTAssertEqual(site.get("/-/login?token=\(SiteHarness.token)", headers: [("Host", host)]).status, 403, host)
        }
        // Two Host headers: each must be right.
        XCTAssertEqual(site.get("/", headers: [("Host", "127.0.0.1:\(SiteHarness.port)"), ("Host", "evil.example"), cookie]).status, 403)
        XCTAssertEqual(site.get("/", headers: [cookie]).status, 400)
    }

    func testPathsThatEscapeOrAreMalformedAreRefused() throws {
        let site = try SiteHarness()
        for path in ["/..", "/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/Person/..", "/%2E%2E", "/Person/%2e", "/a%00b", "/%zz", "/%2",
                     "/Person%2F..%2F..%2Fetc"] {
            XCTAssertEqual(site.get(path).status, 400, path)
        }
        XCTAssertEqual(site.get("/-/static/../../etc/passwd").status, 400)
        XCTAssertEqual(site.get("/-/nothing").status, 404)
        XCTAssertEqual(site.get("/Nobody").status, 404)
        XCTAssertEqual(site.get("/Person/p999999").status, 404)
        XCTAssertEqual(site.get("/Person/q3").status, 404)
    }

    func testAReadOnlyViewOffersNoEditAndRefusesEveryPost() throws {
        let site = try SiteHarness()
        for path in ["/", "/Person", "/Person/p3", "/model", "/doctor", "/history"] {
            let page = SiteHarness.text(site.get(path))
            XCTAssertFalse(page.contains("method=\"post\""), path)
            XCTAssertFalse(page.contains("/-/edit"), path)
        }
        for path in ["/-/edit", "/-/save", "/-/discard", "/-/acknowledge"] {
            XCTAssertEqual(site.post(path, [("object", "Person/p3"), ("key", "age"), ("value", "9")]).status, 403, path)
        }
        XCTAssertEqual(site.post("/Person", []).status, 405)
        XCTAssertEqual(site.site.respond(WebRequest(method: "DELETE", target: "/Person/p3", headers: SiteHarness.signedIn)).status, 405)
    }

    func testAChangeMustComeFromThisServersOwnPageWithItsToken() throws {
        let site = try SiteHarness(writes: true)
        let edit = [("object", "Person/p3"), ("key", "age"), ("value", "9")]
        XCTAssertEqual(site.post("/-/edit", edit, csrf: "wrong").status, 403)
        XCTAssertEqual(site.post("/-/edit", edit, csrf: "").status, 403)
        XCTAssertEqual(site.post("/-/edit", edit, headers: SiteHarness.signedIn + [("Sec-Fetch-Site", "cross-site")]).status, 403)
        XCTAssertEqual(site.post("/-/edit", edit, headers: SiteHarness.signedIn + [("Origin", "https://evil.example")]).status, 403)
        XCTAssertEqual(site.post("/-/edit", edit, headers: [("Host", "127.0.0.1:\(SiteHarness.port)")]).status, 401)
        XCTAssertEqual(site.site.pendingChanges, 0, "nothing refused reached the context")
        XCTAssertEqual(site.post("/-/edit", edit).status, 303)
        XCTAssertEqual(site.site.pendingChanges, 1)
    }

    func testEveryAnswerCarriesTheSecurityHeadersAndNoCORS() throws {
        let site = try SiteHarness()
        for path in ["/", "/Person", "/Person.json", "/-/static/app.js", "/nothing", "/..", "/-/login?token=nope"] {
            let response = site.get(path)
            let csp = try XCTUnwrap(response.header("Content-Security-Policy"), path)
            XCTAssertTrue(csp.contains("default-src 'none'") && csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), csp)
            XCTAssertFalse(csp.contains("unsafe"), csp)
            XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff", path)
            XCTAssertEqual(response.header("Cache-Control"), "no-store", path)
            XCTAssertNil(response.header("Access-Control-Allow-Origin"), path)
        }
        // No inline script or style anywhere: the policy allows none.
        for path in ["/", "/Person", "/Person/p3", "/model", "/doctor", "/history"] {
            let page = SiteHarness.text(site.get(path))
            XCTAssertNil(page.range(of: #"<script(?![^>]*\bsrc=)"#, options: .regularExpression), path)
            XCTAssertFalse(page.contains("style=\""), path)
            XCTAssertFalse(page.contains(" on") && page.range(of: #"\son[a-z]+="#, options: .regularExpression) != nil, path)
        }
    }
}

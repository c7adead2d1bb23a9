import Foundation
import ManagedStore
import XCTest
@testable import WebView

/// The live feed (`/-/events`) follows the store on a thread with a connection of its own.
/// When the web view stops, that thread has ended, and closed its connection, before `close`
/// returns: a browse server that stops leaves nothing running on the app's store.
final class WebLiveFeedTests: XCTestCase {
    func testClosingTheSiteWaitsForTheLiveFeedsFollowerToEnd() throws {
        let harness = try SiteHarness()
        XCTAssertEqual(harness.site.live.followersRunning, 0)
        // A live page that stays a moment, then goes, and another that stays.
        let gone = CancellationScope()
        let response = harness.site.respond(WebRequest(method: "GET", target: Paths.events, headers: SiteHarness.signedIn), scope: gone)
        XCTAssertEqual(response.status, 200)
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { gone.cancel() }
        let stream = String(decoding: SiteHarness.bytes(response), as: UTF8.self)
        XCTAssertTrue(stream.hasPrefix("retry: 3000\n: following the store"), stream)
        let staying = CancellationScope()
        let second = harness.site.respond(WebRequest(method: "GET", target: Paths.events, headers: SiteHarness.signedIn), scope: staying)
        let reading = Thread { _ = SiteHarness.bytes(second) }
        reading.start()
        XCTAssertTrue(try XCTUnwrap(waitFor { harness.site.live.listenerCount == 1 }), "the second page listens")
        // The first page's follower ends on its own; the second page's goes on.
        XCTAssertTrue(try XCTUnwrap(waitFor { harness.site.live.followersRunning == 1 }), "followers: \(harness.site.live.followersRunning)")
        harness.site.close()
        XCTAssertEqual(harness.site.live.followersRunning, 0, "close returned with the follower still running")
        staying.cancel()
    }

    private func waitFor(_ condition: () -> Bool) -> Bool? {
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }
}

import Foundation
import Inspector
import ManagedStore
import TestSupport
import XCTest
@testable import WebView

/// The timeline of saves the store's -wal holds, as a person follows it: from the store's page
/// to the generations, to what one save did, to the object as it was then and back through
/// its versions; each JSON twin says the same.
final class WebGenerationsTests: XCTestCase {
    /// Three saves another process left in the -wal: an update, an insert, a delete.
    func site() throws -> SiteHarness {
        try SiteHarness { path in
            let shell = ["/usr/bin/env", "sqlite3", path, ".dbconfig no_ckpt_on_close on",
                         "UPDATE ZPERSON SET ZNAME = 'renamed', Z_OPT = Z_OPT + 1 WHERE Z_PK = 2",
                         "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) VALUES (51, 3, 1, 'newcomer', 5)",
                         "DELETE FROM ZPERSON WHERE Z_PK = 2"]
            let child = try ChildProcess(shell, environment: ProcessInfo.processInfo.environment, files: [:])
            XCTAssertEqual(child.wait().status, 0)
        }
    }

    func testFromTheStoreToAnObjectAsItWasThenByLinksAlone() throws {
        let site = try site()
        let store = SiteHarness.text(site.get("/"))
        XCTAssertTrue(WebPagesTests.links(store).contains(Paths.generations), "the store's page links the generations")
        XCTAssertTrue(store.contains("3 saves in the -wal"), store)

        let timeline = SiteHarness.text(site.get(Paths.generations))
        XCTAssertTrue(WebPagesTests.links(timeline).contains("/generations/w1"), timeline)
        let twin = try XCTUnwrap((try site.json("/generations.json") as? [String: Any])?["generations"] as? [[String: Any]])
        XCTAssertEqual(twin.map { $0["token"] as? String }, ["w0", "w1", "w2", "w3"])
        XCTAssertEqual(twin[3]["deleted"] as? [String: Int], ["Person": 1])

        // The first save renamed dave1: its page links Person/p2 as it was then.
        let save = SiteHarness.text(site.get("/generations/w1"))
        let then = try XCTUnwrap(WebPagesTests.links(save).first { $0.hasPrefix("/Person/p2?") }, save)
        XCTAssertEqual(then, "/Person/p2?generation=w1")
        let object = SiteHarness.text(site.get(then))
        XCTAssertTrue(object.contains("renamed") && object.contains("As it was at w1"), object)
        // Its versions: present in the main file, updated at w1, deleted at w3.
        let versions = try XCTUnwrap((try site.json("/Person/p2.json?generation=w0") as? [String: Any])?["versions"] as? [[String: Any]])
        XCTAssertEqual(versions.map { "\($0["change"] ?? "") \($0["generation"] ?? "")" }, ["present w0", "updated w1", "deleted w3"])
        let before = SiteHarness.text(site.get("/Person/p2?generation=w0"))
        XCTAssertTrue(before.contains("dave1") && !before.contains("renamed"), before)
        // Gone now; at the newest it is no page.
        XCTAssertEqual(site.get("/Person/p2").status, 404)
        // The deletion's page links the object as it was before it.
        XCTAssertTrue(WebPagesTests.links(SiteHarness.text(site.get("/generations/w3"))).contains("/Person/p2?generation=w2"))
        // An unknown save is a 404 naming the saves there are; a token that is none, a 400.
        XCTAssertEqual(site.get("/generations/w9").status, 404)
        let unknown = site.get("/Person/p1?generation=w9")
        XCTAssertEqual(unknown.status, 400, SiteHarness.text(unknown))
        XCTAssertTrue(SiteHarness.text(unknown).contains("no generation &#39;w9&#39;") || SiteHarness.text(unknown).contains("no generation 'w9'"),
                      SiteHarness.text(unknown))
    }
}

import Foundation
import Inspector
import ManagedStore
import TestSupport
import XCTest
@testable import WebView

/// A store whose content is hostile markup, in its values and in its model's names: every
/// page shows it as text (nothing of it is markup), and its huge values (a 20 MB string, a
/// 100 MB blob) leave every page small: previews and cells are bounded.
final class WebHostileStoreTests: XCTestCase {
    static let script = "<script>window.__pwned=1</script>"
    static let image = "\"><img src=x onerror=\"window.__pwned=1\">"

    /// The hostile store: the example model, its people named with markup, a 20 MB name, a
    /// 100 MB photo, markup in a homepage and a car's plate.
    static func hostile(_ path: String) throws {
        try SiteHarness.sqlite(path, """
            UPDATE ZPERSON SET ZNAME = '\(script)' WHERE Z_PK = 1;
            UPDATE ZPERSON SET ZNAME = '\(image.replacingOccurrences(of: "'", with: "''"))', ZHOMEPAGE = 'javascript:alert(1)' WHERE Z_PK = 2;
            UPDATE ZPERSON SET ZNAME = printf('%.*c', 20000000, 'x') WHERE Z_PK = 3;
            UPDATE ZPERSON SET ZPHOTO = x'01' || zeroblob(100000000) WHERE Z_PK = 4;
            UPDATE ZCAR SET ZPLATE = '</td></tr></table><script>window.__pwned=1</script>' WHERE Z_PK = 1;
            UPDATE ZTAG SET ZNAME = '<!--' WHERE Z_PK = 1;
            """)
    }

    /// No page holds the markup as markup, and every page stays small.
    func testHostileValuesAreTextOnEveryPage() throws {
        let site = try SiteHarness(prepare: Self.hostile)
        for path in ["/", "/Person", "/Person?sort=name", "/Person/p1", "/Person/p2", "/Person/p3", "/Person/p4", "/Car", "/Car/p1",
                     "/Tag", "/Tag/p1", "/Tag/p1/people", "/Person/p1/cars", "/model", "/doctor", "/Person.json", "/Person/p3.json"] {
            let response = site.get(path)
            XCTAssertEqual(response.status, 200, path)
            let page = SiteHarness.text(response)
            // A JSON twin holds the text as JSON holds text (as application/json, nosniff); a page, as text.
            if !path.hasSuffix(".json") {
                XCTAssertTrue(response.header("Content-Type")?.hasPrefix("text/html") == true, path)
                XCTAssertFalse(page.contains("<script>window.__pwned"), "\(path) holds the script as markup")
                XCTAssertFalse(page.contains("<img src=x"), "\(path) holds the image as markup")
                XCTAssertFalse(page.contains("</td></tr></table><script>"), path)
            } else {
                XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8", path)
                XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff", path)
            }
            XCTAssertLessThan(page.utf8.count, 2 << 20, "\(path) is \(page.utf8.count) bytes")
        }
        let person = SiteHarness.text(site.get("/Person/p1"))
        XCTAssertTrue(person.contains("&lt;script&gt;window.__pwned=1&lt;/script&gt;"), person)
        // The 100 MB photo: its size and a download, from its first bytes only.
        let photo = SiteHarness.text(site.get("/Person/p4"))
        XCTAssertTrue(photo.contains("100,000,000 bytes"), photo)
        XCTAssertTrue(photo.contains("/-/blob/Person/p4/photo/data"), photo)
        // The 20 MB name: cut on the page, whole in neither.
        let long = SiteHarness.text(site.get("/Person/p3"))
        XCTAssertTrue(long.contains("more characters)"), String(long.prefix(500)))
        // The URI is text, not a link.
        XCTAssertFalse(SiteHarness.text(site.get("/Person/p2")).contains("href=\"javascript:"))
    }

    /// The blob's download: its bytes, streamed, as an attachment of no type a browser runs.
    func testABlobDownloadsWholeAsAnAttachment() throws {
        let site = try SiteHarness { path in
            try SiteHarness.sqlite(path, "UPDATE ZPERSON SET ZPHOTO = x'01' || CAST('<html><script>alert(1)</script>' AS BLOB) || zeroblob(300000) WHERE Z_PK = 4;")
        }
        let response = site.get("/-/blob/Person/p4/photo/data")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/octet-stream")
        XCTAssertTrue(response.header("Content-Disposition")?.hasPrefix("attachment;") == true)
        let bytes = SiteHarness.bytes(response)
        XCTAssertEqual(bytes.count, 31 + 300_000)
        XCTAssertEqual(Array(bytes.prefix(6)), Array("<html>".utf8))
        XCTAssertEqual(site.get("/-/blob/Person/p4/name/data").status, 400)
        XCTAssertEqual(site.get("/-/blob/Person/p999/photo/data").status, 404)
    }

    /// A model whose entity and attribute names are markup: the pages show them as text.
    func testHostileNamesAreTextToo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = folder.appendingPathComponent("Evil.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Evil&lt;script&gt;x" representedClassName="Evil">
                    <attribute name="a&quot;&gt;&lt;img src=x onerror=1&gt;" optional="YES" attributeType="String"/>
                    <attribute name="title" optional="YES" attributeType="String"/>
                </entity>
            </model>
            """.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let store = folder.appendingPathComponent("Evil.sqlite")
        try StoreCreator.create(at: store.path, model: try XcdatamodelReader.model(atPath: model.path))
        let harness = try SessionHarness(copying: store)
        try harness.run("insert 'Evil<script>x' title=hello")
        try harness.run("save")
        let site = try SiteHarness(copying: harness.folder.appendingPathComponent("Evil.sqlite"))
        for path in ["/", "/" + QueryItems.encode("Evil<script>x"), "/" + QueryItems.encode("Evil<script>x") + "/p1", "/model"] {
            let response = site.get(path)
            XCTAssertEqual(response.status, 200, path)
            let page = SiteHarness.text(response)
            XCTAssertFalse(page.contains("Evil<script>"), path)
            XCTAssertFalse(page.contains("<img src=x"), path)
        }
    }
}

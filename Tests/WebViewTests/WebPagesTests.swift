import Foundation
import Inspector
import ManagedStore
import TestSupport
import XCTest
@testable import WebView

/// The pages, as a person follows them and as a program reads their JSON twins: every page
/// reached by links from the store's page, relationships leading to their objects and back,
/// a grid walked page by page to its end, the JSON twin equal to what the command prints.
final class WebPagesTests: XCTestCase {
    /// The links of a page (`href="…"`), decoded from HTML.
    static func links(_ page: String) -> [String] {
        var found: [String] = []
        var rest = page[...]
        while let start = rest.range(of: "href=\"") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            found.append(String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
                .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">"))
            rest = rest[end...]
        }
        return found
    }

    /// Every page of the example store is reached by links from `/`, and answers 200.
    func testEveryPageIsReachedByLinksAlone() throws {
        let site = try SiteHarness()
        var seen: Set<String> = []
        var queue = ["/"]
        while let path = queue.popLast(), seen.count < 2000 {
            guard !seen.contains(path) else { continue }
            seen.insert(path)
            let response = site.get(path)
            XCTAssertEqual(response.status, 200, "\(path): \(SiteHarness.text(response).prefix(300))")
            guard response.header("Content-Type")?.hasPrefix("text/html") == true else { continue }
            for found in Self.links(SiteHarness.text(response)) where found.hasPrefix("/") && !found.hasPrefix("/-/static") {
                // Follow pages, not every sort and download of every grid, nor every object's twin.
                let link = String(found.split(separator: "#", maxSplits: 1).first ?? "")
                if link.contains("sort=") || link.contains(".csv") || link.hasPrefix("/-/blob") || (link.hasSuffix(".json") && link.contains("/p")) { continue }
                queue.insert(link, at: 0)
            }
        }
        for page in ["/", "/model", "/history", "/doctor", "/Person", "/Car", "/SportsCar", "/Tag", "/Person/p3", "/Car/p3", "/Tag/p1",
                     "/Person/p3/cars", "/Tag/p1/people", "/index.json", "/Person.json"] {
            XCTAssertTrue(seen.contains(page), "\(page) is not reached by links: \(seen.sorted().prefix(40))")
        }
    }

    /// A person's page links to their car, and the car's page back to them; a to-many's page
    /// lists its objects, and they lead back.
    func testRelationshipsLeadToTheirObjectsAndBack() throws {
        let site = try SiteHarness()
        let person = SiteHarness.text(site.get("/Person/p3"))
        XCTAssertTrue(person.contains("<a href=\"/Car/p3\">Car/p3</a>"), person)
        XCTAssertTrue(person.contains("(inverse: Car.owner)"), person)
        let car = SiteHarness.text(site.get("/Car/p3"))
        XCTAssertTrue(car.contains("<dd data-key=\"owner\"><a href=\"/Person/p3\">Person/p3</a>"), car)
        let people = SiteHarness.text(site.get("/Tag/p1/people"))
        let members = Self.links(people).filter { $0.hasPrefix("/Person/p") }
        XCTAssertFalse(members.isEmpty)
        for member in members.prefix(5) {
            XCTAssertTrue(SiteHarness.text(site.get(member)).contains("<a href=\"/Tag/p1\">Tag/p1</a>"), member)
        }
    }

    /// The grid's pages, followed by their next links, give every object once, in order, for
    /// a sort with ties and one with nils; the twin gives what `fetch --format json` gives.
    /// A binary column shows each value's length, and nil for none, as the object page does.
    func testTheGridShowsABinaryValuesLengthOrNil() throws {
        let site = try SiteHarness { path in
            try SiteHarness.sqlite(path, "UPDATE ZPERSON SET ZPHOTO = zeroblob(1234) WHERE Z_PK = 1; UPDATE ZPERSON SET ZPHOTO = NULL WHERE Z_PK = 3;")
        }
        let page = try XCTUnwrap(try site.json("/Person.json?size=3") as? [String: Any])
        let objects = try XCTUnwrap(page["objects"] as? [[String: Any]])
        XCTAssertEqual((objects.first?["photo"] as? [String: Any])?["length"] as? Int, 1234)
        XCTAssertTrue(objects.last?["photo"] is NSNull, "\(objects.last ?? [:])")
        let grid = SiteHarness.text(site.get("/Person?size=3"))
        XCTAssertTrue(grid.contains("<a class=\"muted\" href=\"/Person/p1#photo\">1,234 bytes</a>"), grid)
        let third = try XCTUnwrap(grid.range(of: "data-object=\"x-coredata://5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F/Person/p3\""))
        XCTAssertFalse(grid[third.lowerBound...].prefix(2000).contains("/Person/p3#photo"), grid)
    }

    func testTheGridWalksTheWholeEntityByKey() throws {
        let site = try SiteHarness()
        for sort in ["age", "homepage:desc", ""] {
            var walked: [String] = []
            var path: String? = "/Person.json?size=7" + (sort.isEmpty ? "" : "&sort=\(sort)")
            while let next = path {
                let page = try XCTUnwrap(try site.json(next) as? [String: Any])
                walked += (page["objects"] as? [[String: Any]] ?? []).compactMap { $0["objectID"] as? String }
                path = (page["next"] as? String).map { "/Person.json?size=7&after=\(QueryItems.encode($0))" + (sort.isEmpty ? "" : "&sort=\(sort)") }
                XCTAssertLessThan(walked.count, 60)
            }
            let harness = try SessionHarness(copying: URL(fileURLWithPath: site.path))
            harness.format = .json
            let all = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try harness.run("fetch Person --after start" + (sort.isEmpty ? "" : " --sort \(sort)")).utf8)) as? [[String: Any]])
            XCTAssertEqual(walked, all.compactMap { $0["objectID"] as? String }, sort)
            XCTAssertEqual(Set(walked).count, 50, sort)
        }
        // The twin's objects are fetch's JSON, key for key.
        let twin = try XCTUnwrap(try site.json("/Car.json?where=year%20%3E%202010&sort=year") as? [String: Any])
        let harness = try SessionHarness(copying: URL(fileURLWithPath: site.path))
        harness.format = .json
        let keys = "name,plate,year,owner"
        let fetched = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try harness.run("fetch Car --where 'year > 2010' --sort year --after start --keys \(keys)").utf8)) as? [[String: Any]])
        XCTAssertEqual((twin["objects"] as? [[String: Any]])?.map { NSDictionary(dictionary: $0) }, fetched.map { NSDictionary(dictionary: $0) })
        XCTAssertEqual(twin["count"] as? Int, fetched.count)
        XCTAssertTrue((twin["sql"] as? [String: Any])?["sql"] as? String == nil ? false : true)
    }

    /// The predicate box takes NSPredicate and Swift, and a bad predicate shows its caret.
    func testThePredicateBoxTakesBothSyntaxesAndShowsErrors() throws {
        let site = try SiteHarness()
        let ns = try XCTUnwrap(try site.json("/Person.json?where=\(QueryItems.encode("age > 70 AND name BEGINSWITH \"dave\""))") as? [String: Any])
        let swift = try XCTUnwrap(try site.json("/Person.json?where=\(QueryItems.encode("#Predicate<Person> { $0.age! > 70 && $0.name.starts(with: \"dave\") }"))") as? [String: Any])
        XCTAssertEqual(ns["count"] as? Int, swift["count"] as? Int)
        XCTAssertGreaterThan(ns["count"] as? Int ?? 0, 0)
        let bad = site.get("/Person?where=\(QueryItems.encode("age >> 3"))")
        XCTAssertEqual(bad.status, 400)
        let page = SiteHarness.text(bad)
        XCTAssertTrue(page.contains("<pre class=\"caret\" id=\"predicate-error\">predicate syntax error at column 6"), page)
        XCTAssertTrue(page.contains("  age &gt;&gt; 3\n       ^"), page)
        // A predicate that starts with a dash is a predicate, not an option.
        XCTAssertEqual(site.get("/Person?where=\(QueryItems.encode("-age < -70"))").status, 200)
    }

    /// The count stops at 10,000 and says so; a page size past 1,000 is refused.
    func testCountsAndPageSizesAreBounded() throws {
        let site = try SiteHarness { path in
            try SiteHarness.sqlite(path, "INSERT INTO ZTAG(Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT value + 100, 4, 1, 'bulk' || value FROM generate_series(1, 10500); UPDATE Z_PRIMARYKEY SET Z_MAX = 10600 WHERE Z_NAME = 'Tag';")
        }
        let page = try XCTUnwrap(try site.json("/Tag.json") as? [String: Any])
        XCTAssertEqual(page["count"] as? Int, 10_001)
        XCTAssertEqual(page["countLimited"] as? Bool, true)
        XCTAssertEqual((page["objects"] as? [Any])?.count, 100)
        XCTAssertTrue(SiteHarness.text(site.get("/Tag")).contains("10,000+"))
        XCTAssertEqual(site.get("/Tag?size=1001").status, 400)
        XCTAssertEqual(site.get("/Tag?size=0").status, 400)
        XCTAssertEqual(site.get("/Tag?size=x").status, 400)
    }

    /// The CSV download is fetch's CSV of the query, written as it is read.
    func testTheCSVDownloadIsTheQuerysCSV() throws {
        let site = try SiteHarness()
        let response = site.get("/Car.csv?where=\(QueryItems.encode("year < 2000"))&sort=plate")
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.header("Content-Disposition")?.hasPrefix("attachment") == true)
        let harness = try SessionHarness(copying: URL(fileURLWithPath: site.path))
        harness.format = .csv
        XCTAssertEqual(SiteHarness.text(response), try harness.run("fetch Car --where 'year < 2000' --sort plate"))
    }

    /// The model page draws the diagram (the SVG dot draws, or the Mermaid text) and a card per entity.
    func testTheModelPageHasTheDiagramAndTheCards() throws {
        let site = try SiteHarness()
        let page = SiteHarness.text(site.get("/model"))
        XCTAssertTrue(page.contains("id=\"diagram\""), page)
        for entity in ["Person", "Car", "SportsCar", "Tag"] {
            XCTAssertTrue(page.contains("id=\"entity-\(entity)\""), entity)
            XCTAssertTrue(page.contains(">\(entity)<"), entity)
        }
        if Graphviz.path != nil {
            XCTAssertTrue(page.contains("<svg"), "dot is installed, so the diagram is its SVG")
            XCTAssertTrue(page.contains("xlink:href=\"/Person\"") || page.contains("href=\"/Person\""), "the diagram's entities link to their grids")
        }
        let twin = try XCTUnwrap(try site.json("/model.json") as? [String: Any])
        XCTAssertTrue((twin["mermaid"] as? String ?? "").hasPrefix("erDiagram\n"))
    }

    /// The doctor page charts the space and links a finding's objects.
    func testTheDoctorPageChartsTheSpaceAndLinksFindings() throws {
        let site = try SiteHarness { path in
            try SiteHarness.sqlite(path, "PRAGMA journal_mode=DELETE; UPDATE ZPERSON SET ZNAME = NULL WHERE Z_PK = 4;")
        }
        let page = SiteHarness.text(site.get("/doctor"))
        XCTAssertTrue(page.contains("<svg class=\"chart\""), page)
        XCTAssertTrue(page.contains("required_null"), page)
        XCTAssertTrue(page.contains("<a href=\"/Person/p4\">Person/p4</a>"), page)
        let twin = try XCTUnwrap(try site.json("/doctor.json") as? [String: Any])
        XCTAssertEqual(twin["errors"] as? Int, 1)
    }

    /// A store with history: the chart, the list, a transaction's changes linked to objects,
    /// and an object's own history.
    func testHistoryPagesChartAndLink() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appendingPathComponent("History.sqlite")
        var options = StoreCreator.Options()
        options.persistentHistory = true
        try StoreCreator.create(at: store.path, model: try XcdatamodelReader.model(atPath: SiteHarness.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path),
                                options: options)
        let harness = try SessionHarness(copying: store)
        try harness.run("insert Person name=ann id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F age=30")
        try harness.run("insert Person name=bo id=E621E1F8-C36C-495A-93FC-0C247A3E6E5E age=40")
        try harness.run("save")
        try harness.run("update Person/p2 age=3")
        try harness.run("save")
        let site = try SiteHarness(copying: harness.folder.appendingPathComponent("History.sqlite"))
        let page = SiteHarness.text(site.get("/history"))
        XCTAssertTrue(page.contains("<svg class=\"chart\""), page)
        XCTAssertTrue(page.contains("<a href=\"/history/2\">2</a>"), page)
        let transaction = SiteHarness.text(site.get("/history/2"))
        XCTAssertTrue(transaction.contains("<a href=\"/Person/p2\">Person/p2</a>"), transaction)
        let object = SiteHarness.text(site.get("/Person/p2"))
        XCTAssertTrue(object.contains("<h2>History</h2>") && object.contains("<a href=\"/history/1\">1</a>")
                      && object.contains("<a href=\"/history/2\">2</a>"), object)
        XCTAssertEqual(site.get("/history/99").status, 404)
    }
}

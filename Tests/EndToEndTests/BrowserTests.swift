import Foundation
import XCTest

/// `cdinspect browse` as a person meets it, in Chromium, WebKit and Firefox: by links alone,
/// with the predicate box, an edit and Save, the editing grid, a page following another
/// process's save, a store whose values are hostile markup; and the requests a web view must
/// refuse, sent raw. Chromium runs in every test run; WebKit and Firefox from
/// `Tests/browsers.sh`. Screenshots of the main pages are kept in
/// `.build/browser-screenshots/ENGINE` (looked at, never compared; `docs/screenshots` has a set).
final class BrowserTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    static func screenshots(_ engine: WebDriver.Engine) -> URL {
        let url = Fixtures.packageRoot.appendingPathComponent(".build/browser-screenshots/\(engine.rawValue)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func keep(_ browser: WebDriver, _ name: String) throws {
        try browser.screenshot().write(to: Self.screenshots(browser.engine).appendingPathComponent(name + ".png"))
    }

    /// The console's errors (a script that failed, a resource that did not load).
    func errors(_ browser: WebDriver) throws -> [String] {
        try browser.console().filter { ($0["level"] as? String) == "SEVERE" }.map { "\($0["message"] ?? "")" }
    }

    func testANewUsersWalk() throws { try aNewUsersWalk(.chromium) }
    func testANewUsersWalkInWebKit() throws { try aNewUsersWalk(.webkit) }
    func testANewUsersWalkInFirefox() throws { try aNewUsersWalk(.firefox) }

    func aNewUsersWalk(_ engine: WebDriver.Engine) throws {
        let browser = try WebDriver(engine)
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder).path
        let server = try BrowseServer(store)
        defer { server.stop() }
        try browser.go(server.url)
        XCTAssertEqual(try browser.url, server.page("/"), "the login goes on to the store's page, the token out of the address bar")
        XCTAssertEqual(try browser.text("h1"), "People.sqlite")
        try keep(browser, "store")
        // Store → entity → object → related object → back.
        try browser.follow("a[href='/Person']")
        XCTAssertEqual(try browser.url, server.page("/Person"))
        XCTAssertEqual(try browser.text("#count"), "50")
        try keep(browser, "grid")
        try browser.follow("table.grid tr[data-object$='/Person/p3'] td a")
        XCTAssertEqual(try browser.url, server.page("/Person/p3"))
        try keep(browser, "object")
        try browser.follow("a[href='/Car/p3']")
        XCTAssertEqual(try browser.url, server.page("/Car/p3"))
        try browser.follow("dd[data-key='owner'] a")
        XCTAssertEqual(try browser.url, server.page("/Person/p3"))
        try browser.back()
        XCTAssertEqual(try browser.url, server.page("/Car/p3"))
        // The model, history and doctor pages, from the navigation.
        try browser.follow("nav.site a[href='/model']")
        XCTAssertNotNil(try browser.element("#diagram"))
        try keep(browser, "model")
        try browser.follow("nav.site a[href='/doctor']")
        XCTAssertEqual(try browser.text("#verdict"), "no problem found")
        try keep(browser, "doctor")
        try browser.follow("nav.site a[href='/history']")
        XCTAssertNotNil(try browser.element("h1"))

        // The predicate box, in both syntaxes, and an error with its caret.
        try browser.go(server.page("/Person"))
        try browser.type("#where", "age > 70")
        try browser.follow("form.query button")
        let count = try browser.text("#count") ?? ""
        XCTAssertNotEqual(count, "50")
        XCTAssertFalse(count.isEmpty)
        try browser.type("#where", "#Predicate<Person> { $0.age! > 70 }")
        try browser.follow("form.query button")
        XCTAssertEqual(try browser.text("#count"), count)
        try browser.type("#where", "age >> 3")
        try browser.follow("form.query button")
        let error = try browser.text("#predicate-error") ?? ""
        XCTAssertTrue(error.contains("predicate syntax error at column 6") && error.contains("^"), error)
        try keep(browser, "predicate-error")
        XCTAssertEqual(try errors(browser).filter { !$0.contains("400") }, [])
    }

    func testAnEditAndSaveReachTheStoreAndItsHistory() throws { try anEditAndSaveReachTheStoreAndItsHistory(.chromium) }
    func testAnEditAndSaveReachTheStoreAndItsHistoryInWebKit() throws { try anEditAndSaveReachTheStoreAndItsHistory(.webkit) }
    func testAnEditAndSaveReachTheStoreAndItsHistoryInFirefox() throws { try anEditAndSaveReachTheStoreAndItsHistory(.firefox) }

    func anEditAndSaveReachTheStoreAndItsHistory(_ engine: WebDriver.Engine) throws {
        let browser = try WebDriver(engine)
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder, history: true).path
        let server = try BrowseServer(store, ["--write"])
        defer { server.stop() }
        try browser.go(server.login("/Person/p3"))
        try browser.type("dd[data-key='age'] input.value", "42")
        try browser.follow("dd[data-key='age'] form.edit button")
        XCTAssertEqual(try browser.text("dd[data-key='age'] .pending-value code"), "42")
        XCTAssertEqual(try CLI.run(["fetch", store, "Person", "--where", "SELF == 'Person/p3'", "--keys", "age", "--format", "csv"])
            .stdout.split(separator: "\n").last.map(String.init)?.hasSuffix(",42"), false)
        try keep(browser, "edit")
        try browser.follow("section.pending form[action='/-/save'] button")
        let source = try browser.source
        XCTAssertTrue((try browser.text("#outcome") ?? "").hasPrefix("Saved"), source)
        let fetched = try CLI.run(["fetch", store, "Person", "--where", "SELF == 'Person/p3'", "--keys", "age", "--format", "csv"])
        XCTAssertEqual(fetched.stdout.split(separator: "\n").last.map(String.init)?.hasSuffix(",42"), true, fetched.stdout)
        let history = try XCTUnwrap(CLI.json(["history", store, "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(history.last?["author"] as? String, "cdinspect-browse")
        XCTAssertEqual(history.last?["updates"] as? Int, 1)
    }

    func testAPageFollowsAnotherProcesssSave() throws { try aPageFollowsAnotherProcesssSave(.chromium) }
    func testAPageFollowsAnotherProcesssSaveInWebKit() throws { try aPageFollowsAnotherProcesssSave(.webkit) }
    func testAPageFollowsAnotherProcesssSaveInFirefox() throws { try aPageFollowsAnotherProcesssSave(.firefox) }

    func aPageFollowsAnotherProcesssSave(_ engine: WebDriver.Engine) throws {
        let browser = try WebDriver(engine)
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder).path
        let server = try BrowseServer(store)
        defer { server.stop() }
        try browser.go(server.login("/Person/p3"))
        XCTAssertTrue(try browser.wait(10) { try browser.attribute("body", "data-live-open") == "1" }, "the live events never opened")
        let saved = try CLI.run([store, "-c", "update Person/p3 age=99", "-c", "save"])
        XCTAssertEqual(saved.status, 0, saved.stderr)
        let followed = try browser.wait(15) { try browser.text("dd[data-key='age']")?.hasPrefix("99") == true }
        let page = try browser.source
        XCTAssertTrue(followed, page)
        XCTAssertEqual(try browser.attribute("dd[data-key='age']", "class"), "changed")
        try keep(browser, "live")
        // The store's page counts follow an insert.
        try browser.go(server.page("/"))
        XCTAssertTrue(try browser.wait(10) { try browser.attribute("body", "data-live-open") == "1" })
        let inserted = try CLI.run([store, "-c", "insert Tag name=new", "-c", "save"])
        XCTAssertEqual(inserted.status, 0, inserted.stderr)
        let counted = try browser.wait(15) { try browser.text("[data-count='Tag']") == "5" }
        let store2 = try browser.source
        XCTAssertTrue(counted, store2)
        XCTAssertEqual(try errors(browser), [])
    }

    /// Values and names that are markup show as text: an injected script would set a marker
    /// that stays unset, and the console stays quiet.
    func testAHostileStoreRunsNoScript() throws { try aHostileStoreRunsNoScript(.chromium) }
    func testAHostileStoreRunsNoScriptInWebKit() throws { try aHostileStoreRunsNoScript(.webkit) }
    func testAHostileStoreRunsNoScriptInFirefox() throws { try aHostileStoreRunsNoScript(.firefox) }

    func aHostileStoreRunsNoScript(_ engine: WebDriver.Engine) throws {
        let browser = try WebDriver(engine)
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder).path
        // Markup, a 20 MB string, a 100 MB blob, a javascript: address.
        try HostileMarkup.apply(to: store, """
            UPDATE ZPERSON SET ZNAME = printf('%.*c', 20000000, 'x') WHERE Z_PK = 3;
            UPDATE ZPERSON SET ZPHOTO = x'01' || zeroblob(100000000) WHERE Z_PK = 4;
            UPDATE ZPERSON SET ZHOMEPAGE = 'javascript:window.__pwned=1' WHERE Z_PK = 5;
            """)
        let server = try BrowseServer(store)
        defer { server.stop() }
        try browser.go(server.url)
        for path in ["/", "/Person", "/Person?sort=name", "/Person/p1", "/Person/p2", "/Person/p3", "/Person/p4", "/Person/p5", "/Car", "/Car/p1",
                     "/Tag", "/Tag/p1", "/Tag/p1/people", "/model", "/doctor"] {
            try browser.go(server.page(path))
            XCTAssertEqual(try browser.execute("return window.__pwned === undefined") as? Bool, true, "\(path) ran an injected script")
            XCTAssertEqual(try errors(browser), [], path)
        }
        try browser.go(server.page("/Person/p1"))
        XCTAssertEqual(try browser.text("dd[data-key='name']"), "<script>window.__pwned=1</script>")
        try keep(browser, "hostile")
    }

    func testAGridEditIsOneContextSave() throws { try aGridEditIsOneContextSave(.chromium) }
    func testAGridEditIsOneContextSaveInWebKit() throws { try aGridEditIsOneContextSave(.webkit) }
    func testAGridEditIsOneContextSaveInFirefox() throws { try aGridEditIsOneContextSave(.firefox) }

    /// The editing grid, by keyboard and pointer: a name set in place, an age past the
    /// model's maximum refused beside its cell, a car's owner chosen among the people, a
    /// person inserted and another deleted (after the page of what the delete rules do),
    /// then one Save: the store holds what a context save writes, one history transaction by
    /// the web view's author, and a snapshot taken before it.
    func aGridEditIsOneContextSave(_ engine: WebDriver.Engine) throws {
        let browser = try WebDriver(engine)
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder, history: true).path
        let model = try Fixtures.rangedExampleModel(in: folder)
        let server = try BrowseServer(store, ["--write", "--model", model.path])
        defer { server.stop() }
        let before = try CLI.run(["count", store, "Person"]).stdout
        try browser.go(server.login("/Person"))
        let p3 = "table.grid tr[data-id='Person/p3']"
        // A name, set in place: double-click, type, Enter.
        try browser.doubleClick("\(p3) td[data-key='name'] .cell-value")
        XCTAssertTrue(try browser.wait(5) { try browser.element("\(p3) td[data-key='name'] input.cell-editor") != nil }, "no editor opened")
        try browser.type("\(p3) td[data-key='name'] input.cell-editor", "Zed\u{E007}")
        XCTAssertTrue(try browser.wait(10) { try browser.attribute("\(p3) td[data-key='name']", "class")?.contains("pending-cell") == true },
                      (try? browser.source) ?? "")
        XCTAssertEqual(try browser.text("\(p3) td[data-key='name'] .cell-value"), "Zed")
        XCTAssertEqual(try browser.text("#pending-count"), "1 unsaved change")
        // An age past the model's maximum: refused beside the cell, the value kept.
        try browser.doubleClick("\(p3) td[data-key='age'] .cell-value")
        try browser.type("\(p3) td[data-key='age'] input.cell-editor", "200\u{E007}")
        XCTAssertTrue(try browser.wait(10) { try browser.element("\(p3) td[data-key='age'] .cell-error") != nil }, (try? browser.source) ?? "")
        let refusal = try browser.text("\(p3) td[data-key='age'] .cell-error") ?? ""
        XCTAssertTrue(refusal.contains("maximum 150"), refusal)
        XCTAssertEqual(try browser.text("\(p3) td[data-key='age'] .cell-value"), "73")
        // Escape leaves a cell as it was.
        try browser.doubleClick("\(p3) td[data-key='homepage'] .cell-value")
        try browser.type("\(p3) td[data-key='homepage'] input.cell-editor", "nope\u{E00C}")
        XCTAssertNil(try browser.element("\(p3) td[data-key='homepage'] input.cell-editor"))
        XCTAssertEqual(try browser.text("#pending-count"), "1 unsaved change")
        try keep(browser, "grid-edit")

        // A car's owner, chosen among the people the cell offers as the user types.
        try browser.go(server.page("/Car"))
        let car = "table.grid tr[data-id='Car/p1'] td[data-key='owner']"
        try browser.doubleClick("\(car) .cell-value")
        try browser.type("\(car) input.cell-editor", "dave4")
        // The choices are read in one script: each keystroke's answer replaces them.
        var offered: [String] = []
        _ = try browser.wait(10) {
            offered = try browser.execute("""
                return Array.prototype.map.call(document.querySelectorAll("tr[data-id='Car/p1'] td[data-key='owner'] datalist option"),
                                                function (o) { return o.value; });
                """) as? [String] ?? []
            return offered.count == 11
        }
        // dave4, then dave40 to dave49.
        XCTAssertEqual(offered, ["Person/p5"] + (41...50).map { "Person/p\($0)" })
        let chosen = offered.first ?? "Person/p5"
        try browser.type("\(car) input.cell-editor", chosen + "\u{E007}")
        XCTAssertTrue(try browser.wait(10) { try browser.attribute(car, "class")?.contains("pending-cell") == true }, (try? browser.source) ?? "")

        // A new person, then one deleted after the page of what its rules will do.
        try browser.go(server.page("/Person"))
        // The page, drawn again, marks what is pending.
        XCTAssertEqual(try browser.attribute("\(p3) td[data-key='name']", "class")?.split(separator: " ").contains("pending-cell"), true)
        XCTAssertEqual(try browser.text("\(p3) td[data-key='name'] .cell-value"), "Zed")
        try browser.follow("#new-object")
        let fresh = "#new table.grid tr[data-id] td[data-key='name']"
        XCTAssertNotNil(try browser.element(fresh), (try? browser.source) ?? "")
        // Its required id, then Tab: the next cell (isActive) opens; Escape leaves it.
        let id = "#new table.grid tr[data-id] td[data-key='id']"
        try browser.doubleClick("\(id) .cell-value")
        try browser.type("\(id) input.cell-editor", "6F9619FF-8B86-D011-B42D-00C04FC964FF\u{E004}")
        XCTAssertTrue(try browser.wait(10) { try browser.element("#new td[data-key='isActive'] input.cell-editor") != nil }, "Tab opened no next cell")
        XCTAssertEqual(try browser.text("\(id) .cell-value"), "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        try browser.keys("#new td[data-key='isActive'] input.cell-editor", "\u{E00C}")
        try browser.doubleClick("\(fresh) .cell-value")
        try browser.type("\(fresh) input.cell-editor", "Newbie\u{E007}")
        XCTAssertTrue(try browser.wait(10) { try browser.text("\(fresh) .cell-value") == "Newbie" }, (try? browser.source) ?? "")
        try browser.click("table.grid tr[data-id='Person/p7'] input[type=checkbox]")
        try browser.follow("#delete-objects")
        let effects = try browser.text("ul.effects") ?? ""
        XCTAssertTrue(effects.contains("Person/p7") && effects.contains("cars (cascade)"), effects)
        try keep(browser, "delete-rules")
        try browser.follow("#confirm-delete")
        XCTAssertEqual(try browser.attribute("table.grid tr[data-id='Person/p7']", "class"), "deleted")

        // One save.
        try browser.follow("section.pending form[action='/-/save'] button")
        let outcome = try browser.text("#outcome") ?? ""
        XCTAssertTrue(outcome.hasPrefix("Saved") && outcome.contains("before-browse-"), outcome)
        func value(_ id: String, _ key: String) throws -> String {
            try CLI.run(["fetch", store, id.components(separatedBy: "/")[0], "--where", "SELF == '\(id)'", "--keys", key, "--format", "csv"])
                .stdout.split(separator: "\n").last.map { String($0.split(separator: ",", maxSplits: 1).last ?? "") } ?? ""
        }
        XCTAssertEqual(try value("Person/p3", "name"), "Zed")
        XCTAssertEqual(try value("Person/p3", "age"), "73")
        XCTAssertTrue(try value("Car/p1", "owner").hasSuffix("/Person/p5"))
        XCTAssertEqual(try CLI.run(["count", store, "Person", "--where", "name == 'Newbie'"]).stdout, "1\n")
        XCTAssertEqual(try CLI.run(["count", store, "Person", "--where", "SELF == 'Person/p7'"]).stdout, "0\n")
        XCTAssertEqual(try CLI.run(["count", store, "Person"]).stdout, before)
        let history = try XCTUnwrap(CLI.json(["history", store, "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(history.last?["author"] as? String, "cdinspect-browse")
        XCTAssertEqual(history.last?["inserts"] as? Int, 1, "\(history.last ?? [:])")
        XCTAssertGreaterThanOrEqual(history.last?["deletes"] as? Int ?? 0, 1)
        // The snapshot holds the store as it was before the save.
        let name = try XCTUnwrap(outcome.range(of: #"before-browse-[^ ]+"#, options: .regularExpression).map { String(outcome[$0]) })
        let snapshots = try CLI.run(["snapshots", store, "--format", "json"])
        XCTAssertTrue(snapshots.stdout.contains(name), snapshots.stdout + snapshots.stderr)
        // The history page shows the save, by the web view's author.
        try browser.go(server.page("/history"))
        XCTAssertTrue((try browser.source).contains("cdinspect-browse"))
        try keep(browser, "history")
        XCTAssertEqual(try errors(browser), [])
    }

    func testAPhoneWidthScrollsTheGridNotThePage() throws { try aPhoneWidthScrollsTheGridNotThePage(.chromium) }
    func testAPhoneWidthScrollsTheGridNotThePageInWebKit() throws { try aPhoneWidthScrollsTheGridNotThePage(.webkit) }
    func testAPhoneWidthScrollsTheGridNotThePageInFirefox() throws { try aPhoneWidthScrollsTheGridNotThePage(.firefox) }

    /// In a phone's width (390 pixels) the pages fit the window: a wide grid scrolls sideways
    /// in its own box, its object column kept in view, and an identifier or a date stays on
    /// one line instead of breaking a character a line.
    func aPhoneWidthScrollsTheGridNotThePage(_ engine: WebDriver.Engine) throws {
        let browser = try WebDriver(engine)
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder).path
        let server = try BrowseServer(store, ["--write"])
        defer { server.stop() }
        try browser.resize(width: 390, height: 844)
        try browser.go(server.login("/Person"))
        let measure = """
            var root = document.documentElement, box = document.querySelector(".grid-scroll");
            function lines(css) {
              var cell = document.querySelector(css), range = document.createRange();
              range.selectNodeContents(cell.querySelector(".cell-value") || cell);
              var tops = {};
              Array.prototype.forEach.call(range.getClientRects(), function (r) { tops[Math.round(r.top)] = true; });
              return Object.keys(tops).length;
            }
            var first = document.querySelector("table.grid tr[data-id='Person/p3'] > :first-child");
            box.scrollLeft = 400;
            var kept = first.getBoundingClientRect().left;
            return [root.scrollWidth - window.innerWidth, box.scrollWidth > box.clientWidth ? 1 : 0,
                    lines("tr[data-id='Person/p3'] td[data-key='id']"), lines("tr[data-id='Person/p3'] td[data-key='birthday']"), Math.round(kept)];
            """
        let grid = try browser.execute(measure) as? [Int] ?? []
        XCTAssertEqual(grid.count, 5, "\(grid)")
        guard grid.count == 5 else { return }
        XCTAssertLessThanOrEqual(grid[0], 1, "the page is wider than the window by \(grid[0]) pixels")
        XCTAssertEqual(grid[1], 1, "the grid does not scroll in its box")
        XCTAssertEqual(grid[2], 1, "the UUID breaks over \(grid[2]) lines")
        XCTAssertEqual(grid[3], 1, "the date breaks over \(grid[3]) lines")
        XCTAssertLessThanOrEqual(abs(grid[4] - 16), 16, "the object column scrolled away (at \(grid[4]))")
        try keep(browser, "phone-grid")
        try browser.go(server.page("/Person/p3"))
        let page = try browser.execute("return document.documentElement.scrollWidth - window.innerWidth") as? Int ?? -1
        XCTAssertLessThanOrEqual(page, 1, "the object page is wider than the window by \(page) pixels")
        try keep(browser, "phone-object")
    }

    /// What a web view must refuse, sent raw; the server answers each and goes on serving.
    func testRequestsTheServerMustRefuse() throws {
        let store = try Fixtures.exampleStore(in: folder).path
        let server = try BrowseServer(store, ["--write"])
        defer { server.stop() }
        let host = "Host: 127.0.0.1:\(server.port)\r\n"
        let cookie = "Cookie: cdinspect-browse-\(server.port)=\(server.token)\r\n"
        func get(_ target: String, _ headers: String) -> Int? { server.raw(Array("GET \(target) HTTP/1.1\r\n\(headers)Connection: close\r\n\r\n".utf8)).status }
        XCTAssertEqual(get("/", host + cookie), 200)
        XCTAssertEqual(get("/", host), 401, "no token")
        XCTAssertEqual(get("/", "Host: evil.example:\(server.port)\r\n" + cookie), 403, "a foreign Host")
        XCTAssertEqual(get("/", "Host: evil.example\r\n" + cookie), 403)
        XCTAssertEqual(get("/..%2F..%2Fetc%2Fpasswd", host + cookie), 400, "percent-encoded traversal")
        XCTAssertEqual(get("/../../etc/passwd", host + cookie), 400, "plain traversal")
        // A cross-site POST with the cookie, and one without the form's token.
        let body = "csrf=x&object=Person%2Fp1&key=age&value=1"
        let post = "POST /-/edit HTTP/1.1\r\n\(host)\(cookie)Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
        XCTAssertEqual(server.raw(Array((post + "Origin: https://evil.example\r\nSec-Fetch-Site: cross-site\r\nConnection: close\r\n\r\n" + body).utf8)).status, 403)
        XCTAssertEqual(server.raw(Array((post + "Sec-Fetch-Site: same-origin\r\nConnection: close\r\n\r\n" + body).utf8)).status, 403)
        // A 200 KB URL, a 1 MB header, a malformed request line: 4xx or a closed connection.
        let long = get("/" + String(repeating: "a", count: 200_000), host + cookie)
        XCTAssertTrue(long == nil || (400..<500).contains(long ?? 0), "\(String(describing: long))")
        let huge = get("/", host + cookie + "X-Filler: " + String(repeating: "b", count: 1 << 20) + "\r\n")
        XCTAssertTrue(huge == nil || (400..<500).contains(huge ?? 0), "\(String(describing: huge))")
        let garbage = server.raw(Array("NOT HTTP AT ALL\r\n\r\n".utf8)).status
        XCTAssertTrue(garbage == nil || (400..<500).contains(garbage ?? 0))
        let large = server.raw(Array((post.replacingOccurrences(of: "Content-Length: \(body.utf8.count)", with: "Content-Length: \(3 << 20)")
                                      + "Connection: close\r\n\r\n" + String(repeating: "z", count: 3 << 20)).utf8)).status
        XCTAssertTrue(large == nil || large == 413, "\(String(describing: large))")
        // Still serving, and nothing reached the store.
        XCTAssertEqual(get("/Person", host + cookie), 200)
        XCTAssertEqual(try CLI.run(["count", store, "Person", "--where", "age == 1"]).stdout, "0\n")
    }

    /// Every genuine store: the first grid page of every entity and its first object answer
    /// 200 and render in Chromium without a script error; the model page shows a diagram.
    func testEveryFixtureRendersInChromium() throws {
        try LongSuite.require("Every entity of every fixture store in Chromium")
        let browser = try WebDriver()
        defer { browser.quit() }
        let stores = try Fixtures.everyStore
        for (i, relative) in stores.enumerated() {
            let work = folder.appendingPathComponent("f\(i)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let store = try Fixtures.copy(relative, into: work).path
            let server = try BrowseServer(store)
            // The browser leaves the server's pages before it stops: Chromium asks for a page's
            // icon after the page has loaded, and that late request to a stopped server would
            // be the next store's console error.
            defer {
                try? browser.go("about:blank")
                server.stop()
            }
            let host = "Host: 127.0.0.1:\(server.port)\r\nCookie: cdinspect-browse-\(server.port)=\(server.token)\r\n"
            func status(_ path: String) -> Int? { server.raw(Array("GET \(path) HTTP/1.1\r\n\(host)Connection: close\r\n\r\n".utf8), timeout: 60).status }
            try browser.go(server.url)
            XCTAssertEqual(try errors(browser), [], relative)
            let entities = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try CLI.run(["entities", store, "--format", "json"]).stdout.utf8)) as? [[String: Any]])
            for entity in entities.compactMap({ $0["name"] as? String }) {
                let grid = "/" + (entity.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? entity)
                XCTAssertEqual(status(grid), 200, "\(relative) \(grid)")
                try browser.go(server.page(grid))
                XCTAssertEqual(try errors(browser), [], "\(relative) \(grid)")
                if let first = try browser.attribute("table.grid tr[data-object] td a", "href") {
                    let path = first.hasPrefix("http") ? String(first.dropFirst("http://127.0.0.1:\(server.port)".count)) : first
                    XCTAssertEqual(status(path), 200, "\(relative) \(path)")
                    try browser.go(server.page(path))
                    XCTAssertEqual(try errors(browser), [], "\(relative) \(path)")
                }
            }
            try browser.go(server.page("/model"))
            XCTAssertNotNil(try browser.element("#diagram svg, pre#diagram"), "\(relative): no diagram")
            XCTAssertEqual(try errors(browser), [], "\(relative) /model")
        }
    }
}

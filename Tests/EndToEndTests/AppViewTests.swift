import Foundation
import XCTest

/// The MCP server's views (MCP Apps, `io.modelcontextprotocol/ui`): offered only to a client
/// that declares the extension, served as `ui://` documents, and shown by a test host in
/// headless Chromium as a host shows them: the view's document in a sandboxed frame, spoken to
/// over `postMessage` with the extension's JSON-RPC (`ui/initialize`, the tool's input and
/// result), fed a real tool result of the server.
final class AppViewTests: XCTestCase {
    static let mimeType = "text/html;profile=mcp-app"
    static var showsViews: [String: Any] { ["extensions": ["io.modelcontextprotocol/ui": ["mimeTypes": [mimeType]]]] }
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    /// `cdinspect mcp STORE`, initialized by a client that shows views or not.
    func server(_ store: String, views: Bool) throws -> (MCPPipe, [String: Any]) {
        let mcp = try MCPPipe([store, "--timeout", "0"])
        try mcp.request(0, "initialize", ["protocolVersion": "2025-06-18", "capabilities": views ? Self.showsViews : [String: Any](),
                                          "clientInfo": ["name": "tests", "version": "1"]])
        let initialized = try XCTUnwrap(try mcp.answer(0, within: 10)?["result"] as? [String: Any])
        try mcp.send(["jsonrpc": "2.0", "method": "notifications/initialized"])
        return (mcp, initialized)
    }

    func result(_ mcp: MCPPipe, _ id: Int, _ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        try mcp.request(id, method, params)
        let reply = try XCTUnwrap(try mcp.answer(id, within: 60), "no answer to \(method)")
        return try XCTUnwrap(reply["result"] as? [String: Any], "\(reply)")
    }

    func testViewsAreOfferedToAClientThatShowsThemAndToNoOther() throws {
        let store = try Fixtures.exampleStore(in: folder, history: true).path
        let (mcp, initialized) = try server(store, views: true)
        defer { _ = mcp.finish() }
        let extensions = (initialized["capabilities"] as? [String: Any])?["extensions"] as? [String: Any]
        XCTAssertNotNil(extensions?["io.modelcontextprotocol/ui"], "\(initialized)")
        let tools = try XCTUnwrap(try result(mcp, 1, "tools/list")["tools"] as? [[String: Any]])
        var views: [String: String] = [:]
        for tool in tools {
            if let uri = ((tool["_meta"] as? [String: Any])?["ui"] as? [String: Any])?["resourceUri"] as? String {
                views[tool["name"] as? String ?? ""] = uri
                // The older flat key beside it, for hosts that read only that.
                XCTAssertEqual((tool["_meta"] as? [String: Any])?["ui/resourceUri"] as? String, uri, "\(tool["name"] ?? "")")
            }
        }
        XCTAssertEqual(views, ["fetch": "ui://cdinspect/grid", "sql": "ui://cdinspect/grid", "model": "ui://cdinspect/model",
                               "doctor": "ui://cdinspect/doctor", "history": "ui://cdinspect/history"])
        for uri in Set(views.values) {
            let read = try result(mcp, 2 + uri.count, "resources/read", ["uri": uri])
            let content = try XCTUnwrap((read["contents"] as? [[String: Any]])?.first)
            XCTAssertEqual(content["mimeType"] as? String, Self.mimeType, uri)
            XCTAssertTrue((content["text"] as? String)?.hasPrefix("<!DOCTYPE html>") == true, uri)
            // The view loads nothing: it declares no domain of any kind.
            let csp = ((content["_meta"] as? [String: Any])?["ui"] as? [String: Any])?["csp"] as? [String: [String]]
            XCTAssertEqual(csp, ["connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []], uri)
            XCTAssertFalse((content["text"] as? String ?? "").contains("http"), "\(uri) names no address")
        }
        let listed = try XCTUnwrap(try result(mcp, 39, "resources/list")["resources"] as? [[String: Any]]).compactMap { $0["uri"] as? String }
        XCTAssertEqual(Set(listed.filter { $0.hasPrefix("ui://") }), Set(views.values), "\(listed)")
        let fetched = try result(mcp, 40, "tools/call", ["name": "fetch", "arguments": ["entity": "Car", "limit": 3]])
        let drawn = ((fetched["_meta"] as? [String: Any])?["io.github.cdinspect/view"] as? [String: Any])?["html"] as? String
        XCTAssertTrue(drawn?.contains("<table class=\"grid\">") == true, "\(fetched)")

        // A client that declares nothing sees the server as before.
        let (plain, plainInitialized) = try server(store, views: false)
        defer { _ = plain.finish() }
        XCTAssertNil((plainInitialized["capabilities"] as? [String: Any])?["extensions"])
        let plainTools = try XCTUnwrap(try result(plain, 1, "tools/list")["tools"] as? [[String: Any]])
        XCTAssertTrue(plainTools.allSatisfy { ($0["_meta"] as? [String: Any])?["ui"] == nil && ($0["_meta"] as? [String: Any])?["ui/resourceUri"] == nil })
        let plainListed = try XCTUnwrap(try result(plain, 3, "resources/list")["resources"] as? [[String: Any]]).compactMap { $0["uri"] as? String }
        XCTAssertFalse(plainListed.isEmpty, "the schema's resources")
        XCTAssertEqual(plainListed.filter { $0.hasPrefix("ui://") }, [], "a client that shows no view is offered none")
        let plainFetched = try result(plain, 2, "tools/call", ["name": "fetch", "arguments": ["entity": "Car", "limit": 3]])
        XCTAssertNil(plainFetched["_meta"])
        // What the model reads is the same either way, and is what the command line prints.
        XCTAssertEqual(Self.texts(plainFetched), Self.texts(fetched))
        for (id, tool, arguments, command) in [(50, "info", [String: Any](), ["info", store]), (51, "entities", [:], ["entities", store]),
                                               (52, "doctor", [:], ["doctor", store]), (53, "model", ["view": "hashes"], ["model", store, "hashes"]),
                                               (54, "count", ["entity": "Person"], ["count", store, "Person"])] {
            let shown = try result(mcp, id, "tools/call", ["name": tool, "arguments": arguments])
            let plainAnswer = try result(plain, id, "tools/call", ["name": tool, "arguments": arguments])
            XCTAssertEqual(Self.texts(shown), Self.texts(plainAnswer), tool)
            let printed = try CLI.run(command + ["--format", "json"])
            XCTAssertEqual(Self.texts(plainAnswer).first, printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines), tool)
        }
    }

    static func texts(_ result: [String: Any]) -> [String] {
        (result["content"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    // MARK: In a browser

    /// A host page: the view's document in a frame sandboxed as hosts sandbox it (scripts, an
    /// opaque origin), the extension's handshake, then the tool's input and result. The view's
    /// tool calls are kept in `window.hostCalls` and answered with an error: this host runs none.
    /// `width`: the frame's width; `follow`: the frame takes the height the view reports, as a
    /// host sizes it. `later`: results the test hands over afterwards (`window.hostSend(i)`).
    /// Every answer the view gives the host's requests is kept in `window.hostReplies`, every
    /// height it reports in `window.hostHeights`.
    func host(document: String, input: [String: Any], result: [String: Any], width: Int = 1200, follow: Bool = false,
              later: [[String: Any]] = []) throws -> URL {
        let data = try JSONSerialization.data(withJSONObject: ["html": document, "input": input, "result": result, "later": later])
        let page = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>test host</title></head><body>
            <iframe id="app" sandbox="allow-scripts" width="\(width)" height="850"></iframe>
            <script>
            var data = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob("\(data.base64EncodedString())"), function (c) { return c.charCodeAt(0); })));
            window.hostCalls = []; window.hostSeen = []; window.hostMessages = []; window.hostSizes = 0; window.hostHeights = []; window.hostReplies = [];
            var frame = document.getElementById("app");
            function post(message) { frame.contentWindow.postMessage(message, "*"); }
            window.hostPost = post;
            window.hostSend = function (i) { post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: data.later[i] }); };
            function reply(id, result) { post({ jsonrpc: "2.0", id: id, result: result }); }
            window.addEventListener("message", function (event) {
              if (event.source !== frame.contentWindow) return;
              var m = event.data;
              window.hostSeen.push(m.method || "response");
              window.hostMessages.push(m);
              if (m.method === undefined) window.hostReplies.push(m);
              if (m.method === "ui/initialize") {
                reply(m.id, { protocolVersion: "2026-01-26", hostInfo: { name: "test-host", version: "1" }, hostCapabilities: { serverTools: {} },
                              hostContext: { theme: "light", displayMode: "inline" } });
              } else if (m.method === "ui/notifications/initialized") {
                post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: data.input } });
                post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: data.result });
              } else if (m.method === "ui/notifications/size-changed") {
                window.hostSizes += 1;
                window.hostHeights.push(m.params.height);
                if (\(follow)) frame.height = m.params.height;
              } else if (m.method === "tools/call") {
                window.hostCalls.push(m.params);
                reply(m.id, { content: [{ type: "text", text: "this test host runs no tool" }], isError: true });
              }
            });
            frame.srcdoc = data.html;
            </script></body></html>
            """
        let url = folder.appendingPathComponent("host-\(UUID().uuidString).html")
        try Data(page.utf8).write(to: url)
        return url
    }

    /// Shows `tool`'s answer for `arguments` in its view in `browser`; returns with the
    /// browser looking into the view's frame, once the view has drawn it.
    /// `passedOn`: what of the result the host hands the view (all of it by default).
    func show(_ browser: WebDriver, _ mcp: MCPPipe, _ id: Int, _ tool: String, _ arguments: [String: Any], view: String,
              passedOn: ([String: Any]) -> [String: Any] = { $0 }, width: Int = 1200, follow: Bool = false,
              later: [[String: Any]] = []) throws {
        let answer = try result(mcp, id, "tools/call", ["name": tool, "arguments": arguments])
        XCTAssertNotEqual(answer["isError"] as? Bool, true, "\(answer)")
        let read = try result(mcp, id + 1000, "resources/read", ["uri": "ui://cdinspect/\(view)"])
        let document = try XCTUnwrap((read["contents"] as? [[String: Any]])?.first?["text"] as? String)
        try browser.frame(nil)
        try browser.go(try host(document: document, input: arguments, result: passedOn(answer), width: width, follow: follow,
                                later: later).absoluteString)
        try browser.frame("#app")
        XCTAssertTrue(try browser.wait(15) { (try browser.execute("return window.cdinspectView && window.cdinspectView.rendered") as? Int ?? 0) >= 1 },
                      "the \(view) view never drew \(tool)'s answer")
    }

    func keep(_ browser: WebDriver, _ name: String) throws {
        try browser.frame(nil)
        try browser.screenshot().write(to: BrowserTests.screenshots(.chromium).appendingPathComponent("view-" + name + ".png"))
    }

    func testAHostShowsEachViewAndAnObjectsLinkAsksForAFetch() throws {
        let browser = try WebDriver()
        defer { browser.quit() }
        // More people than a page holds, so that fetch gives a next page.
        let store = try Fixtures.exampleStore(in: folder, people: 1100, history: true).path
        // Transactions for history's view: two saves.
        for age in [41, 42] {
            XCTAssertEqual(try CLI.run([store, "-c", "update Person/p2 age=\(age)", "-c", "save"]).status, 0)
        }
        let (mcp, _) = try server(store, views: true)
        defer { _ = mcp.finish() }

        // The grid shows the fetched rows; an owner's link asks the host for that object.
        try show(browser, mcp, 1, "fetch", ["entity": "Car", "limit": 5], view: "grid")
        // The grid draws the rows from the structured content though the server drew them too.
        XCTAssertNotNil(try browser.element("[data-drawn='structured']"))
        XCTAssertEqual(try browser.elements("tr[data-object]").count, 5)
        // (The test host hands the result on re-encoded, its keys in any order: the name is
        // found by its column's heading.)
        let name = try browser.execute("""
            var keys = Array.prototype.map.call(document.querySelectorAll("table.grid thead th"), function (th) { return th.textContent; });
            return document.querySelector("tr[data-object]").children[keys.indexOf("name")].textContent;
            """) as? String
        XCTAssertEqual(name, "Mustang")
        try browser.click("tr[data-object] a[href='/Person/p1']")
        try browser.frame(nil)
        XCTAssertTrue(try browser.wait(10) { (try browser.execute("return window.hostCalls.length") as? Int ?? 0) == 1 })
        let call = try XCTUnwrap((try browser.execute("return window.hostCalls[0]") as? [String: Any]))
        XCTAssertEqual(call["name"] as? String, "fetch")
        let arguments = try XCTUnwrap(call["arguments"] as? [String: Any])
        XCTAssertEqual(arguments["entity"] as? String, "Person")
        XCTAssertEqual(arguments["predicate"] as? String, "SELF == %@")
        XCTAssertEqual(arguments["arguments"] as? [String], ["Person/p1"])
        // The handshake as the extension defines it, and the view's size told to the host.
        let seen = try XCTUnwrap(try browser.execute("return window.hostSeen") as? [String])
        XCTAssertEqual(Array(seen.prefix(2)), ["ui/initialize", "ui/notifications/initialized"])
        XCTAssertTrue(try browser.wait(10) { (try browser.execute("return window.hostSizes") as? Int ?? 0) > 0 }, "the view never told its size")
        try keep(browser, "grid")

        // The next page is asked of the host with the answer's cursor.
        try show(browser, mcp, 2, "fetch", ["entity": "Person", "limit": 0, "keys": ["name"]], view: "grid")
        XCTAssertEqual(try browser.elements("tr[data-object]").count, 1000)
        let cursor = try XCTUnwrap(try browser.attribute("button[data-cursor]", "data-cursor"))
        try browser.click("button[data-cursor]")
        try browser.frame(nil)
        XCTAssertTrue(try browser.wait(10) { (try browser.execute("return window.hostCalls.length") as? Int ?? 0) == 1 })
        let next = try XCTUnwrap((try browser.execute("return window.hostCalls[0]") as? [String: Any]))
        XCTAssertEqual(next["name"] as? String, "fetch")
        XCTAssertEqual((next["arguments"] as? [String: Any])?["cursor"] as? String, cursor)

        // The model's diagram names every entity, and so do its cards.
        try show(browser, mcp, 4, "model", ["view": "graph"], view: "model")
        let diagram = try XCTUnwrap(try browser.execute("return document.getElementById('diagram').textContent") as? String)
        for entity in ["Person", "Car", "SportsCar", "Tag"] {
            XCTAssertTrue(diagram.contains(entity), "the diagram names \(entity)")
            XCTAssertNotNil(try browser.element("#entity-\(entity)"), entity)
        }
        try keep(browser, "model")

        // Doctor's chart and verdict; history's timeline and transactions.
        try show(browser, mcp, 5, "doctor", [:], view: "doctor")
        XCTAssertNotNil(try browser.element("svg.chart"))
        XCTAssertNotNil(try browser.element("#verdict"))
        try keep(browser, "doctor")
        try show(browser, mcp, 6, "history", ["limit": 20], view: "history")
        XCTAssertNotNil(try browser.element("svg.chart"))
        XCTAssertGreaterThan(try browser.elements("a[href^='/history/']").count, 0)
        try keep(browser, "history")
        try browser.frame(nil)
        XCTAssertEqual(try browser.console().filter { ($0["level"] as? String) == "SEVERE" }.map { "\($0["message"] ?? "")" }, [])
    }

    /// A host that passes on only `content` and `structuredContent` (the extension lets it
    /// drop `_meta`): each of the five views draws the answer from its structured content,
    /// every text in it shown, an object's URI a link that asks for a fetch.
    func testAHostThatDropsMetaStillShowsEveryViewWhole() throws {
        let browser = try WebDriver()
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder, history: true).path
        for age in [41, 42] {
            XCTAssertEqual(try CLI.run([store, "-c", "update Person/p2 age=\(age)", "-c", "save"]).status, 0)
        }
        let (mcp, _) = try server(store, views: true)
        defer { _ = mcp.finish() }
        let dropMeta: ([String: Any]) -> [String: Any] = { answer in
            var passed = answer
            passed["_meta"] = nil
            return passed
        }
        for (id, tool, arguments, view) in [(1, "fetch", ["entity": "Car", "limit": 5] as [String: Any], "grid"),
                                            (2, "sql", ["query": "SELECT ZNAME, ZAGE FROM ZPERSON ORDER BY Z_PK LIMIT 4"], "grid"),
                                            (3, "model", ["view": "graph"], "model"), (4, "doctor", [:], "doctor"),
                                            (5, "history", ["limit": 20], "history")] {
            let answer = try result(mcp, id + 100, "tools/call", ["name": tool, "arguments": arguments])
            let structured = try XCTUnwrap(answer["structuredContent"], tool)
            try show(browser, mcp, id, tool, arguments, view: view, passedOn: dropMeta)
            XCTAssertNotNil(try browser.element("[data-drawn='structured']"), "\(tool): drawn from the structured content")
            let text = try XCTUnwrap(try browser.execute("return document.getElementById('view').textContent") as? String)
            var missing: [String] = []
            Self.eachText(in: structured) { if !text.contains($0) { missing.append($0) } }
            XCTAssertEqual(missing, [], "\(tool): texts of the answer the view does not show")
            if tool == "fetch" {
                XCTAssertEqual(try browser.elements("table.grid tbody tr").count, 5)
                try browser.click("a[href='/Person/p1']")
                try browser.frame(nil)
                XCTAssertTrue(try browser.wait(10) { (try browser.execute("return window.hostCalls.length") as? Int ?? 0) == 1 })
                let call = try XCTUnwrap(try browser.execute("return window.hostCalls[0]") as? [String: Any])
                XCTAssertEqual((call["arguments"] as? [String: Any])?["arguments"] as? [String], ["Person/p1"])
            }
            try keep(browser, "without-meta-\(view)-\(tool)")
        }
        try browser.frame(nil)
        XCTAssertEqual(try browser.console().filter { ($0["level"] as? String) == "SEVERE" }.map { "\($0["message"] ?? "")" }, [])
    }

    /// Every string in a JSON value, keys aside.
    static func eachText(in value: Any, _ body: (String) -> Void) {
        if let text = value as? String { body(text) }
        else if let list = value as? [Any] { list.forEach { eachText(in: $0, body) } }
        else if let record = value as? [String: Any] { record.values.forEach { eachText(in: $0, body) } }
    }

    /// In a frame as wide as a host's (640 pixels) that takes the height the view reports: 40
    /// people fit in under 3,000 pixels (no identifier broken a character a line), and the next
    /// answer, of one person, reports less than half of that: the frame follows the content
    /// down as well as up. A request the view does not handle is answered with -32601.
    /// The extension's app-side rules (the MCP Apps SDK's validator catalogue, APP-001 to
    /// APP-104), each checked on what the server and the views send: resources under `ui://`
    /// as `text/html;profile=mcp-app` HTML documents that exist; tools' and resources' `_meta.ui`
    /// of the schema's keys only; a meaningful `content` beside every view; and in a frame, a
    /// `ui/initialize` with its capabilities first, `ui/notifications/initialized` next,
    /// nothing but well-formed JSON-RPC of the extension's methods, the size as it changes.
    func testTheViewsKeepTheExtensionsAppRules() throws {
        let store = try Fixtures.exampleStore(in: folder, history: true).path
        let (mcp, _) = try server(store, views: true)
        defer { _ = mcp.finish() }
        let tools = try XCTUnwrap(try result(mcp, 1, "tools/list")["tools"] as? [[String: Any]])
        let listed = try XCTUnwrap(try result(mcp, 2, "resources/list")["resources"] as? [[String: Any]])
        let listedURIs = Set(listed.compactMap { $0["uri"] as? String })
        for tool in tools {
            guard let ui = (tool["_meta"] as? [String: Any])?["ui"] as? [String: Any] else { continue }
            let name = tool["name"] as? String ?? ""
            XCTAssertTrue(Set(ui.keys).isSubset(of: ["resourceUri", "visibility"]), "APP-007 \(name): \(ui.keys)")
            let uri = try XCTUnwrap(ui["resourceUri"] as? String)
            XCTAssertTrue(uri.hasPrefix("ui://"), "APP-001 \(uri)")
            XCTAssertTrue(listedURIs.contains(uri), "APP-005 \(uri) is not on the server")
            if let visibility = ui["visibility"] as? [String] { XCTAssertTrue(Set(visibility).isSubset(of: ["model", "app"]), "APP-011 \(visibility)") }
        }
        for resource in listed where (resource["uri"] as? String)?.hasPrefix("ui://") == true {
            if let ui = (resource["_meta"] as? [String: Any])?["ui"] as? [String: Any] {
                XCTAssertTrue(Set(ui.keys).isSubset(of: ["csp", "permissions", "domain", "prefersBorder"]), "APP-008 \(ui.keys)")
            }
            let read = try result(mcp, 3, "resources/read", ["uri": resource["uri"] as? String ?? ""])
            let content = try XCTUnwrap((read["contents"] as? [[String: Any]])?.first)
            XCTAssertEqual(content["mimeType"] as? String, Self.mimeType, "APP-002")
            let text = try XCTUnwrap(content["text"] as? String, "APP-003")
            XCTAssertTrue(text.hasPrefix("<!DOCTYPE html>") && text.contains("<html") && text.hasSuffix("</html>"), "APP-004")
        }
        for (id, tool, arguments) in [(10, "fetch", ["entity": "Car", "limit": 3] as [String: Any]), (11, "sql", ["query": "SELECT 1 AS one"]),
                                      (12, "model", ["view": "graph"]), (13, "doctor", [:]), (14, "history", ["limit": 5])] {
            let answer = try result(mcp, id, "tools/call", ["name": tool, "arguments": arguments])
            XCTAssertFalse(Self.texts(answer).joined().isEmpty, "APP-010 \(tool): no content for the model")
        }

        // In a frame, as a host meets the view.
        let browser = try WebDriver()
        defer { browser.quit() }
        try show(browser, mcp, 20, "fetch", ["entity": "Car", "limit": 40], view: "grid", width: 640, follow: true)
        try browser.frame(nil)
        XCTAssertTrue(try browser.wait(10) { (try browser.execute("return window.hostSizes") as? Int ?? 0) > 0 }, "APP-104: no size reported")
        let messages = try XCTUnwrap(try browser.execute("return window.hostMessages") as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(messages.count, 2)
        XCTAssertEqual(messages.first?["method"] as? String, "ui/initialize", "APP-100")
        let initialize = try XCTUnwrap(messages.first?["params"] as? [String: Any])
        XCTAssertNotNil(initialize["appCapabilities"] as? [String: Any], "APP-101")
        XCTAssertNotNil((initialize["appInfo"] as? [String: Any])?["name"] as? String)
        XCTAssertNotNil(initialize["protocolVersion"] as? String)
        XCTAssertNotNil(messages.first?["id"], "ui/initialize is a request")
        XCTAssertEqual(messages.dropFirst().first?["method"] as? String, "ui/notifications/initialized", "APP-102")
        let known: Set<String> = ["ui/initialize", "ui/notifications/initialized", "ui/notifications/size-changed", "tools/call", "resources/read",
                                  "ui/open-link", "ui/message", "ui/request-display-mode", "ui/update-model-context", "notifications/message", "ping"]
        for message in messages {
            XCTAssertEqual(message["jsonrpc"] as? String, "2.0", "APP-103 \(message)")
            if let method = message["method"] as? String {
                XCTAssertTrue(known.contains(method), "APP-103: \(method) is no method of the extension")
                if method.contains("/notifications/") { XCTAssertNil(message["id"], "a notification carries no id: \(message)") }
                if method == "ui/notifications/size-changed" {
                    let size = message["params"] as? [String: Any]
                    XCTAssertNotNil(size?["height"] as? NSNumber, "\(message)")
                }
            } else {
                XCTAssertNotNil(message["id"], "APP-103: neither a request, a notification nor a response: \(message)")
                XCTAssertTrue((message["result"] != nil) != (message["error"] != nil), "\(message)")
            }
        }
    }

    func testAViewReportsItsContentsHeightAndAnswersEveryRequest() throws {
        let browser = try WebDriver()
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder).path
        let (mcp, _) = try server(store, views: true)
        defer { _ = mcp.finish() }
        let one = try result(mcp, 50, "tools/call", ["name": "fetch", "arguments": ["entity": "Person", "limit": 1]])
        try show(browser, mcp, 1, "fetch", ["entity": "Person", "limit": 40], view: "grid", width: 640, follow: true, later: [one])
        XCTAssertEqual(try browser.elements("tr[data-object]").count, 40)
        try browser.frame(nil)
        func lastHeight() throws -> Int { (try browser.execute("return window.hostHeights[window.hostHeights.length - 1] || 0") as? Int) ?? 0 }
        XCTAssertTrue(try browser.wait(10) { try lastHeight() > 0 }, "the view never told its height")
        // The frame takes the height told: the content's, so telling it again changes nothing.
        XCTAssertTrue(try browser.wait(10) {
            (try browser.execute("return document.getElementById('app').height") as? String) == String(try lastHeight())
        })
        let tall = try lastHeight()
        XCTAssertLessThan(tall, 3000, "40 people in a 640-pixel frame")
        XCTAssertGreaterThan(tall, 400, "40 people take some room")
        try keep(browser, "grid-640")
        _ = try browser.execute("window.hostSend(0)")
        let shrunk = try browser.wait(10) { try lastHeight() < tall / 2 }
        let now = try lastHeight()
        XCTAssertTrue(shrunk, "after one person the view still reports \(now) of \(tall)")
        try keep(browser, "grid-640-one")

        _ = try browser.execute("window.hostPost({ jsonrpc: '2.0', id: 'probe', method: 'ui/no-such-request', params: {} })")
        XCTAssertTrue(try browser.wait(10) { (try browser.execute("return window.hostReplies.filter(function (r) { return r.id === 'probe'; }).length") as? Int ?? 0) == 1 },
                      "no answer to a request the view does not handle")
        let code = try browser.execute("return window.hostReplies.filter(function (r) { return r.id === 'probe'; })[0].error.code") as? Int
        XCTAssertEqual(code, -32601)
    }

    /// Values that are markup show as text in every view: an injected script would set a
    /// marker in the view's window that stays unset, and the console stays quiet.
    func testAHostileStoreRunsNoScriptInAView() throws {
        let browser = try WebDriver()
        defer { browser.quit() }
        let store = try Fixtures.exampleStore(in: folder).path
        try HostileMarkup.apply(to: store, """
            UPDATE ZPERSON SET ZHOMEPAGE = 'javascript:window.__pwned=1' WHERE Z_PK = 3;
            UPDATE ZTAG SET ZNAME = '<iframe srcdoc="<script>parent.__pwned=1</script>">' WHERE Z_PK = 2;
            """)
        let (mcp, _) = try server(store, views: true)
        defer { _ = mcp.finish() }
        for (id, tool, arguments) in [(1, "fetch", ["entity": "Person", "limit": 5] as [String: Any]), (2, "fetch", ["entity": "Car", "limit": 3]),
                                      (3, "sql", ["query": "SELECT ZNAME, ZHOMEPAGE FROM ZPERSON LIMIT 5"]), (4, "fetch", ["entity": "Tag"])] {
            try show(browser, mcp, id, tool, arguments, view: "grid")
            XCTAssertEqual(try browser.execute("return window.__pwned === undefined") as? Bool, true, "\(tool) \(arguments)")
            XCTAssertNil(try browser.element("#view script, #view iframe, #view img, #view [onload], #view [onerror]"), "\(tool) \(arguments)")
            let text = try XCTUnwrap(try browser.execute("return document.body.textContent") as? String)
            XCTAssertTrue(text.contains("<script>window.__pwned=1</script>") || tool != "fetch" || id != 1, text)
            try browser.frame(nil)
            XCTAssertEqual(try browser.execute("return window.__pwned === undefined") as? Bool, true)
        }
        try keep(browser, "hostile")
        XCTAssertEqual(try browser.console().filter { ($0["level"] as? String) == "SEVERE" }.map { "\($0["message"] ?? "")" }, [])
    }
}

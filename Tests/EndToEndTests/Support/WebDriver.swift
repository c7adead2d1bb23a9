import Foundation
import XCTest

/// A browser driven through WebDriver, used by a test as a person uses it: by links, forms,
/// clicks and keys, and asked what it shows and what its scripts set. Three engines:
/// headless Chromium (chromedriver), WebKitGTK, Safari's engine (WebKitWebDriver with
/// MiniBrowser on an Xvfb display), and Firefox ESR (headless, through its own Marionette
/// protocol: no geckodriver). Where an engine is missing the tests skip, saying so
/// (`RequiredTools`); CI installs Chromium and requires it.
final class WebDriver {
    enum Engine: String, CaseIterable {
        case chromium, webkit, firefox

        /// Whether this run asks for the engine: Chromium always; the others when
        /// `CDINSPECT_BROWSERS` names them (`Tests/browsers.sh` names all three).
        func require() throws {
            guard self != .chromium else { return }
            let asked = (ProcessInfo.processInfo.environment["CDINSPECT_BROWSERS"] ?? "chromium").split(separator: ",").map(String.init)
            guard asked.contains(rawValue) else { throw XCTSkip("\(rawValue) runs from Tests/browsers.sh (CDINSPECT_BROWSERS=chromium,webkit,firefox)") }
        }
    }

    let engine: Engine
    private var processes: [ChildProcess] = []
    private var base: URL?
    private var session = ""
    private var marionette: Marionette?
    private let profile: URL

    static var chromium: URL {
        get throws {
            try RequiredTools.require("chromium", candidates: ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"],
                                      install: "apt-get install chromium chromium-driver")
        }
    }

    static var chromedriver: URL {
        get throws { try RequiredTools.require("chromedriver", candidates: ["/usr/bin/chromedriver"], install: "apt-get install chromium-driver") }
    }

    init(_ engine: Engine = .chromium) throws {
        try engine.require()
        self.engine = engine
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-\(engine.rawValue)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        do {
            switch engine {
            case .chromium: try startChromium()
            case .webkit: try startWebKit()
            case .firefox: try startFirefox()
            }
        } catch {
            stopProcesses()
            throw error
        }
    }

    private static func failure(_ code: Int, _ text: String) -> NSError {
        NSError(domain: "WebDriver", code: code, userInfo: [NSLocalizedDescriptionKey: text])
    }

    /// A W3C WebDriver server (`arguments` plus its port) answering on a free port.
    private func startDriver(_ arguments: [String], environment: [String: String]) throws -> URL {
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let process = try ChildProcess(arguments + ["--port=\(port)"], environment: environment, files: [:])
            let url = URL(string: "http://127.0.0.1:\(port)")!
            let deadline = Date(timeIntervalSinceNow: 10)
            // A driver that could not take the port ends at once: another port is tried.
            while Date() < deadline, process.pollEnding() == nil {
                if let status = try? Self.request("GET", url.appendingPathComponent("status"), nil), status["value"] != nil {
                    processes.append(process)
                    return url
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            kill(process.pid, SIGTERM)
            _ = process.waitForEnding()
        }
        throw Self.failure(1, "\(arguments[0]) did not start")
    }

    private func newSession(_ capabilities: [String: Any]) throws {
        let created = try Self.request("POST", base!.appendingPathComponent("session"), ["capabilities": ["alwaysMatch": capabilities]])
        guard let value = created["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            throw Self.failure(2, "no session: \(created)")
        }
        session = id
    }

    private func startChromium() throws {
        let browser = try Self.chromium
        base = try startDriver([try Self.chromedriver.path, "--allowed-ips=127.0.0.1"], environment: ProcessInfo.processInfo.environment)
        try newSession([
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": browser.path,
                                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                                            "--window-size=1280,900", "--user-data-dir=\(profile.path)"]],
            "goog:loggingPrefs": ["browser": "ALL"],
        ])
    }

    /// WebKitGTK's driver and MiniBrowser, on an X display of their own (Xvfb).
    private func startWebKit() throws {
        let driver = try RequiredTools.require("WebKitWebDriver", install: "apt-get install webkit2gtk-driver")
        let xvfb = try RequiredTools.require("Xvfb", install: "apt-get install xvfb")
        let miniBrowser = ["/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser", "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
                           "/usr/libexec/webkit2gtk-4.1/MiniBrowser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let miniBrowser else { throw XCTSkip("MiniBrowser (webkit2gtk-driver's browser) is not installed: the WebKit tests skip") }
        var environment = ProcessInfo.processInfo.environment
        var display: Int?
        for _ in 0..<5 {
            let number = Int.random(in: 100...900)
            let server = try ChildProcess([xvfb.path, ":\(number)", "-screen", "0", "1280x900x24", "-nolisten", "tcp"], environment: environment, files: [:])
            let socket = "/tmp/.X11-unix/X\(number)"
            let deadline = Date(timeIntervalSinceNow: 10)
            while Date() < deadline, server.pollEnding() == nil, !FileManager.default.fileExists(atPath: socket) { Thread.sleep(forTimeInterval: 0.05) }
            if server.pollEnding() == nil, FileManager.default.fileExists(atPath: socket) {
                processes.append(server)
                display = number
                break
            }
            kill(server.pid, SIGTERM)
            _ = server.waitForEnding()
        }
        guard let display else { throw Self.failure(1, "Xvfb did not start") }
        environment["DISPLAY"] = ":\(display)"
        base = try startDriver([driver.path], environment: environment)
        try newSession(["browserName": "MiniBrowser",
                        "webkitgtk:browserOptions": ["binary": miniBrowser, "args": ["--automation", "--geometry=1280x900"]]])
    }

    /// Firefox, headless, with Marionette on a port of its own.
    private func startFirefox() throws {
        let firefox = try RequiredTools.require("firefox-esr", candidates: ["/usr/bin/firefox-esr", "/usr/bin/firefox"], install: "apt-get install firefox-esr")
        let port = Int.random(in: 20_000...60_000)
        let prefs = [
            "marionette.port": "\(port)", "browser.shell.checkDefaultBrowser": "false", "datareporting.policy.dataSubmissionEnabled": "false",
            "toolkit.telemetry.reportingpolicy.firstRun": "false", "browser.startup.homepage_override.mstone": "\"ignore\"",
            "app.update.disabledForTesting": "true", "browser.tabs.warnOnClose": "false", "network.captive-portal-service.enabled": "false",
            "browser.safebrowsing.update.enabled": "false", "remote.prefs.recommended": "true",
        ]
        try prefs.map { "user_pref(\"\($0.key)\", \($0.value));" }.joined(separator: "\n").write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["MOZ_HEADLESS"] = "1"
        environment["MOZ_HEADLESS_WIDTH"] = "1280"
        environment["MOZ_HEADLESS_HEIGHT"] = "900"
        let process = try ChildProcess([firefox.path, "--marionette", "--headless", "--no-remote", "--profile", profile.path, "about:blank"],
                                       environment: environment, files: [:])
        processes.append(process)
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline, process.pollEnding() == nil {
            if let connection = try? Marionette(port: port) {
                marionette = connection
                break
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        guard let marionette else { throw Self.failure(1, "Firefox's Marionette did not answer on port \(port)") }
        _ = try marionette.call("WebDriver:NewSession", ["capabilities": ["alwaysMatch": ["acceptInsecureCerts": true]]])
        _ = try? marionette.call("WebDriver:SetWindowRect", ["width": 1280, "height": 900])
    }

    deinit { quit() }

    private var quitDone = false
    func quit() {
        guard !quitDone else { return }
        quitDone = true
        if let marionette {
            _ = try? marionette.call("Marionette:Quit", ["flags": ["eForceQuit"]])
            marionette.close()
        } else if let base, !session.isEmpty {
            _ = try? Self.request("DELETE", base.appendingPathComponent("session/\(session)"), nil)
        }
        stopProcesses()
        try? FileManager.default.removeItem(at: profile)
    }

    private func stopProcesses() {
        for process in processes.reversed() {
            kill(process.pid, SIGTERM)
            _ = process.waitForEnding()
        }
        processes = []
    }

    // MARK: Commands

    @discardableResult
    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        if let marionette { return try marionette.command(method, path, body) }
        let answer = try Self.request(method, base!.appendingPathComponent("session/\(session)/\(path)"), body ?? (method == "POST" ? [:] : nil))
        if let value = answer["value"] as? [String: Any], let error = value["error"] as? String {
            throw NSError(domain: "WebDriver", code: 3, userInfo: [NSLocalizedDescriptionKey: "\(path): \(error): \(value["message"] ?? "")"])
        }
        return answer["value"]
    }

    func go(_ url: String) throws { try command("POST", "url", ["url": url]) }
    /// Back one page, waiting for it to load (some drivers answer before it has).
    func back() throws {
        try execute("window.__cdinspectOldPage = true")
        try command("POST", "back")
        _ = try wait(15) {
            (try? execute("return window.__cdinspectOldPage === undefined && document.readyState === 'complete'") as? Bool) == true
        }
    }
    var url: String { get throws { try command("GET", "url") as? String ?? "" } }
    var title: String { get throws { try command("GET", "title") as? String ?? "" } }
    var source: String { get throws { try command("GET", "source") as? String ?? "" } }

    /// The first element `css` selects; nil when none does.
    func element(_ css: String) throws -> String? {
        let found = try command("POST", "elements", ["using": "css selector", "value": css]) as? [[String: Any]] ?? []
        return found.first?.values.first as? String
    }

    func elements(_ css: String) throws -> [String] {
        (try command("POST", "elements", ["using": "css selector", "value": css]) as? [[String: Any]] ?? []).compactMap { $0.values.first as? String }
    }

    /// Clicks the first element `css` selects (a link, a button).
    func click(_ css: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let id = try element(css) else { XCTFail("nothing matches \(css) on \(try url)", file: file, line: line); return }
        try command("POST", "element/\(id)/click")
    }

    /// Clicks what submits a form or follows a link, and waits for the next page to load.
    func follow(_ css: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try url
        try execute("window.__cdinspectOldPage = true")
        try click(css, file: file, line: line)
        _ = try wait(15) {
            (try? execute("return window.__cdinspectOldPage === undefined && document.readyState === 'complete'") as? Bool) == true
        }
        _ = before
    }

    func type(_ css: String, _ text: String) throws {
        guard let id = try element(css) else { throw Self.failure(4, "no \(css)") }
        try command("POST", "element/\(id)/clear")
        try command("POST", "element/\(id)/value", ["text": text])
    }

    func text(_ css: String) throws -> String? {
        guard let id = try element(css) else { return nil }
        return try command("GET", "element/\(id)/text") as? String
    }

    func attribute(_ css: String, _ name: String) throws -> String? {
        guard let id = try element(css) else { return nil }
        return try command("GET", "element/\(id)/attribute/\(name)") as? String
    }

    /// Looks into the frame `css` selects (nil: back to the page itself): what follows
    /// (elements, scripts, clicks) is the frame's.
    func frame(_ css: String?) throws {
        guard let css else { try command("POST", "frame", ["id": NSNull()]); return }
        guard let id = try element(css) else { throw Self.failure(5, "no frame \(css)") }
        try command("POST", "frame", ["id": ["element-6066-11e4-a52e-4f735466cecf": id]])
    }

    /// Runs `script` in the page (`return …` for a value).
    @discardableResult
    func execute(_ script: String, _ arguments: [Any] = []) throws -> Any? {
        try command("POST", "execute/sync", ["script": script, "args": arguments])
    }

    func screenshot() throws -> Data {
        Data(base64Encoded: try command("GET", "screenshot") as? String ?? "") ?? Data()
    }

    /// What the console said since the last call (`level`, `message`). Only Chromium's
    /// driver hands its console out; in the other engines the page's script keeps count of
    /// its own errors and of the content-security policy's refusals (`data-script-errors`,
    /// `data-csp-refusals` on the document), and those are what is reported, as SEVERE.
    func console() throws -> [[String: Any]] {
        guard engine == .chromium else {
            let found = try execute("""
                var d = document.documentElement;
                return [d.getAttribute("data-script-errors") || "", d.getAttribute("data-csp-refusals") || ""];
                """) as? [String] ?? []
            return found.filter { !$0.isEmpty }.map { ["level": "SEVERE", "message": $0] }
        }
        return try command("POST", "se/log", ["type": "browser"]) as? [[String: Any]] ?? []
    }

    /// Double-clicks the first element `css` selects, as a pointer would.
    func doubleClick(_ css: String) throws {
        guard let id = try element(css) else { throw Self.failure(4, "no \(css)") }
        let origin = ["element-6066-11e4-a52e-4f735466cecf": id]
        // A pointer moves only within the window: the element is brought into it first.
        try execute("arguments[0].scrollIntoView({ block: 'center', inline: 'center' });", [origin])
        try command("POST", "actions", ["actions": [["type": "pointer", "id": "mouse", "parameters": ["pointerType": "mouse"], "actions": [
            ["type": "pointerMove", "origin": origin, "x": 0, "y": 0, "duration": 0],
            ["type": "pointerDown", "button": 0], ["type": "pointerUp", "button": 0],
            ["type": "pointerDown", "button": 0], ["type": "pointerUp", "button": 0],
        ]]]])
        if engine != .firefox { _ = try? command("DELETE", "actions") }
    }

    /// Sends keys to the first element `css` selects, without clearing it (WebDriver's key
    /// codes: `\u{E007}` Enter, `\u{E004}` Tab, `\u{E00C}` Escape).
    func keys(_ css: String, _ text: String) throws {
        guard let id = try element(css) else { throw Self.failure(4, "no \(css)") }
        try command("POST", "element/\(id)/value", ["text": text])
    }

    /// Sets the window's size (a phone's width, a host's frame).
    func resize(width: Int, height: Int) throws {
        try command("POST", "window/rect", ["width": width, "height": height])
    }

    /// Waits (polling) until `condition` holds, up to `seconds`.
    func wait(_ seconds: TimeInterval, _ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try condition()
    }

    // MARK: HTTP

    /// A WebDriver call over a plain socket to the driver on loopback (swift-corelibs-foundation's
    /// URLSession fails on chromedriver's answers: "Failed writing header").
    static func request(_ method: String, _ url: URL, _ body: [String: Any]?) throws -> [String: Any] {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var head = "\(method) \(url.path.isEmpty ? "/" : url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 80)\r\nConnection: close\r\n"
        if body != nil { head += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(payload.count)\r\n" }
        let exchange = LoopbackHTTP.exchange(port: url.port ?? 80, Array((head + "\r\n").utf8) + [UInt8](payload), timeout: 120)
        guard exchange.status != nil else { throw NSError(domain: "WebDriver", code: 5, userInfo: [NSLocalizedDescriptionKey: "no answer from \(url)"]) }
        return (try? JSONSerialization.jsonObject(with: Data(exchange.body.utf8))) as? [String: Any] ?? [:]
    }
}

/// `cdinspect browse`'s server on a copy of a store, for a test: started on a free port, its
/// address read from what it prints, stopped at the end.
final class BrowseServer {
    let process: ChildProcess
    let url: String
    let port: Int
    let token: String
    private var stopped = false

    init(_ store: String, _ arguments: [String] = []) throws {
        let program = CLI.binary.deletingLastPathComponent().appendingPathComponent("cdinspect-browse")
        let output = try ChildProcess.makePipe()
        defer { close(output.read) }
        process = try ChildProcess([program.path, store] + arguments, environment: ProcessInfo.processInfo.environment,
                                   files: [:], descriptors: [1: output.write])
        close(output.write)
        // The two lines it prints at start (the address on the second), read as they come.
        var text = ""
        let deadline = Date(timeIntervalSinceNow: 30)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !text.contains("token="), Date() < deadline {
            var ready = pollfd(fd: output.read, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) >= 0 else { break }
            if ready.revents == 0 { continue }
            let count = read(output.read, &chunk, chunk.count)
            if count <= 0 { break }
            text += String(decoding: chunk[..<count], as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("http://") }),
              let portText = line.split(separator: ":").last?.split(separator: "/").first, let port = Int(portText),
              let token = line.split(separator: "=").last else {
            kill(process.pid, SIGTERM)
            _ = process.waitForEnding()
            throw NSError(domain: "BrowseServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "no address in: \(text)"])
        }
        url = String(line)
        self.port = port
        self.token = String(token)
    }

    deinit { stop() }

    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(process.pid, SIGINT)
        _ = process.waitForEnding()
    }

    /// The login address that goes on to `path`.
    func login(_ path: String = "/") -> String { url + "&next=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/") }

    func page(_ path: String) -> String { "http://127.0.0.1:\(port)" + path }

    /// A raw HTTP exchange with the server: the request's bytes as given, the response's status
    /// (nil for a connection closed without one) and its text.
    func raw(_ request: [UInt8], timeout: TimeInterval = 10) -> (status: Int?, response: String) {
        let exchange = LoopbackHTTP.exchange(port: port, request, timeout: timeout)
        return (exchange.status, exchange.text)
    }
}

/// HTTP/1.1 over a socket to 127.0.0.1, one exchange per connection (`Connection: close`):
/// what a test sends is sent byte for byte, however malformed.
enum LoopbackHTTP {
    static func exchange(port: Int, _ request: [UInt8], timeout: TimeInterval) -> (status: Int?, text: String, body: String) {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { return (nil, "", "") }
        keepSignalsAway(fd)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return (nil, "", "") }
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { buffer in buffer.baseAddress.map { send(fd, $0 + sent, request.count - sent, noSignal) } ?? -1 }
            if n <= 0 { break }
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < 64 << 20 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
            if complete(received) { break }
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = text.hasPrefix("HTTP/1.") ? text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } : nil
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, text, body)
    }

    /// Whether `bytes` hold a whole response (by its Content-Length, or a chunked body's end):
    /// a server may keep the connection open after it.
    static func complete(_ bytes: [UInt8]) -> Bool {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...max(0, bytes.count - 4)).first(where: { bytes.count >= $0 + 4 && Array(bytes[$0..<$0 + 4]) == separator }) else { return false }
        let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        let bodyCount = bytes.count - end - 4
        if let range = head.range(of: "content-length:") {
            let length = Int(head[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber }) ?? 0
            return bodyCount >= length
        }
        if head.contains("transfer-encoding: chunked") { return bytes.suffix(5) == [48, 13, 10, 13, 10] }
        return false
    }
}

/// Firefox's Marionette protocol, which WebDriver's commands mirror (geckodriver speaks it
/// to Firefox): over TCP, each message `length:json`, a command `[0, id, name, parameters]`
/// and its answer `[1, id, error, result]`. `command` takes the W3C paths `WebDriver` uses.
final class Marionette {
    private let fd: Int32
    private var next = 1

    init(port: Int) throws {
        fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw NSError(domain: "Marionette", code: 1) }
        keepSignalsAway(fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var tv = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, (try? receive()) != nil else {
            closeDescriptor(fd)
            throw NSError(domain: "Marionette", code: 2, userInfo: [NSLocalizedDescriptionKey: "no Marionette greeting"])
        }
    }

    func close() { closeDescriptor(fd) }

    /// One message: the length in ASCII digits, a colon, then that many bytes of JSON.
    private func receive() throws -> Any {
        var length = 0
        var byte: UInt8 = 0
        while true {
            guard recv(fd, &byte, 1, 0) == 1 else { throw NSError(domain: "Marionette", code: 3, userInfo: [NSLocalizedDescriptionKey: "connection closed"]) }
            if byte == UInt8(ascii: ":") { break }
            length = length * 10 + Int(byte - 48)
        }
        var data = [UInt8](repeating: 0, count: length)
        var got = 0
        while got < length {
            let n = data.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, length - got, 0) }
            guard n > 0 else { throw NSError(domain: "Marionette", code: 3, userInfo: [NSLocalizedDescriptionKey: "connection closed"]) }
            got += n
        }
        return try JSONSerialization.jsonObject(with: Data(data), options: [.fragmentsAllowed])
    }

    /// Sends a command and waits for its answer's result (its `value`, when it has one).
    func call(_ name: String, _ parameters: [String: Any]) throws -> Any? {
        let id = next
        next += 1
        let payload = try JSONSerialization.data(withJSONObject: [0, id, name, parameters] as [Any])
        let message = Array("\(payload.count):".utf8) + [UInt8](payload)
        var sent = 0
        while sent < message.count {
            let n = message.withUnsafeBytes { send(fd, $0.baseAddress! + sent, message.count - sent, noSignal) }
            guard n > 0 else { throw NSError(domain: "Marionette", code: 4) }
            sent += n
        }
        while true {
            guard let answer = try receive() as? [Any], answer.count == 4, answer[1] as? Int == id else { continue }
            if let error = answer[2] as? [String: Any] {
                throw NSError(domain: "Marionette", code: 5, userInfo: [NSLocalizedDescriptionKey: "\(name): \(error["error"] ?? ""): \(error["message"] ?? "")"])
            }
            if let result = answer[3] as? [String: Any], result.count == 1, let value = result["value"] { return value }
            return answer[3]
        }
    }

    /// A W3C path (`element/ID/click`) as its Marionette command.
    func command(_ method: String, _ path: String, _ body: [String: Any]?) throws -> Any? {
        let parts = path.split(separator: "/").map(String.init)
        let body = body ?? [:]
        switch (method, parts.first ?? "") {
        case ("POST", "url"): return try call("WebDriver:Navigate", body)
        case ("GET", "url"): return try call("WebDriver:GetCurrentURL", [:])
        case ("POST", "back"): return try call("WebDriver:Back", [:])
        case ("GET", "title"): return try call("WebDriver:GetTitle", [:])
        case ("GET", "source"): return try call("WebDriver:GetPageSource", [:])
        case ("POST", "elements"): return try call("WebDriver:FindElements", body)
        case ("POST", "execute"): return try call("WebDriver:ExecuteScript", body)
        case ("GET", "screenshot"): return try call("WebDriver:TakeScreenshot", ["full": false])
        case ("POST", "actions"): return try call("WebDriver:PerformActions", body)
        case ("POST", "window"): return try call("WebDriver:SetWindowRect", body)
        case ("POST", "frame"):
            if let reference = body["id"] as? [String: Any], let element = reference.values.first as? String {
                return try call("WebDriver:SwitchToFrame", ["element": element, "focus": true])
            }
            return try call("WebDriver:SwitchToFrame", [:])
        case (_, "element") where parts.count >= 3:
            let id = parts[1]
            switch (method, parts[2]) {
            case ("POST", "click"): return try call("WebDriver:ElementClick", ["id": id])
            case ("POST", "clear"): return try call("WebDriver:ElementClear", ["id": id])
            case ("POST", "value"): return try call("WebDriver:ElementSendKeys", ["id": id, "text": body["text"] ?? ""])
            case ("GET", "text"): return try call("WebDriver:GetElementText", ["id": id])
            case ("GET", "attribute") where parts.count == 4: return try call("WebDriver:GetElementAttribute", ["id": id, "name": parts[3]])
            default: break
            }
        default: break
        }
        throw NSError(domain: "Marionette", code: 6, userInfo: [NSLocalizedDescriptionKey: "no Marionette command for \(method) \(path)"])
    }
}

/// `SOCK_STREAM`: an enum case of Glibc's, a plain `Int32` of Darwin's.
#if canImport(Glibc)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#else
private let streamSocket = SOCK_STREAM
#endif

/// `close(2)`, from inside types that have a `close()` of their own.
private func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}

/// A send to a peer that has gone fails with EPIPE rather than stopping the test process with
/// SIGPIPE: per call on Linux (`MSG_NOSIGNAL`), per socket on Darwin (`SO_NOSIGPIPE`).
#if canImport(Glibc)
private let noSignal = Int32(MSG_NOSIGNAL)
private func keepSignalsAway(_ fd: Int32) {}
#else
private let noSignal: Int32 = 0
private func keepSignalsAway(_ fd: Int32) {
    var on: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
}
#endif

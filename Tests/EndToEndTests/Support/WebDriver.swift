import Foundation
import XCTest

/// Headless Chromium, driven through WebDriver (W3C, as chromedriver speaks it): a browser a
/// test uses as a person does, by links, forms and clicks, and asks what it shows, what its
/// scripts set and what its console said. Where Chromium or its driver is missing the tests
/// skip, saying so (`RequiredTools`); CI installs both and requires them.
final class WebDriver {
    private let driver: ChildProcess
    private let base: URL
    private let session: String
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

    init() throws {
        let browser = try Self.chromium
        let driverPath = try Self.chromedriver
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        var started: (ChildProcess, URL)?
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let process = try ChildProcess([driverPath.path, "--port=\(port)", "--allowed-ips=127.0.0.1"],
                                           environment: ProcessInfo.processInfo.environment, files: [:])
            let url = URL(string: "http://127.0.0.1:\(port)")!
            let deadline = Date(timeIntervalSinceNow: 10)
            var ready = false
            // A driver that could not take the port ends at once: another port is tried.
            while Date() < deadline, !ready, process.pollEnding() == nil {
                if let status = try? Self.request("GET", url.appendingPathComponent("status"), nil), status["value"] != nil { ready = true } else {
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            if ready {
                started = (process, url)
                break
            }
            kill(process.pid, SIGTERM)
            _ = process.waitForEnding()
        }
        guard let (process, url) = started else { throw NSError(domain: "WebDriver", code: 1, userInfo: [NSLocalizedDescriptionKey: "chromedriver did not start"]) }
        driver = process
        base = url
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": browser.path,
                                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                                            "--window-size=1280,900", "--user-data-dir=\(profile.path)"]],
            "goog:loggingPrefs": ["browser": "ALL"],
        ]]]
        let created = try Self.request("POST", base.appendingPathComponent("session"), capabilities)
        guard let value = created["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            kill(process.pid, SIGTERM)
            _ = process.waitForEnding()
            throw NSError(domain: "WebDriver", code: 2, userInfo: [NSLocalizedDescriptionKey: "no session: \(created)"])
        }
        session = id
    }

    deinit { quit() }

    private var quitDone = false
    func quit() {
        guard !quitDone else { return }
        quitDone = true
        _ = try? Self.request("DELETE", base.appendingPathComponent("session/\(session)"), nil)
        kill(driver.pid, SIGTERM)
        _ = driver.waitForEnding()
        try? FileManager.default.removeItem(at: profile)
    }

    // MARK: Commands

    @discardableResult
    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        let answer = try Self.request(method, base.appendingPathComponent("session/\(session)/\(path)"), body ?? (method == "POST" ? [:] : nil))
        if let value = answer["value"] as? [String: Any], let error = value["error"] as? String {
            throw NSError(domain: "WebDriver", code: 3, userInfo: [NSLocalizedDescriptionKey: "\(path): \(error): \(value["message"] ?? "")"])
        }
        return answer["value"]
    }

    func go(_ url: String) throws { try command("POST", "url", ["url": url]) }
    func back() throws { try command("POST", "back") }
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
        guard let id = try element(css) else { throw NSError(domain: "WebDriver", code: 4, userInfo: [NSLocalizedDescriptionKey: "no \(css)"]) }
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
        guard let id = try element(css) else { throw NSError(domain: "WebDriver", code: 5, userInfo: [NSLocalizedDescriptionKey: "no frame \(css)"]) }
        try command("POST", "frame", ["id": ["element-6066-11e4-a52e-4f735466cecf": id]])
    }

    /// Runs `script` in the page (`return …` for a value).
    @discardableResult
    func execute(_ script: String) throws -> Any? {
        try command("POST", "execute/sync", ["script": script, "args": []])
    }

    func screenshot() throws -> Data {
        Data(base64Encoded: try command("GET", "screenshot") as? String ?? "") ?? Data()
    }

    /// What the console said since the last call (`level`, `message`).
    func console() throws -> [[String: Any]] {
        try command("POST", "se/log", ["type": "browser"]) as? [[String: Any]] ?? []
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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return (nil, "", "") }
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
            let n = request.withUnsafeBytes { buffer in buffer.baseAddress.map { send(fd, $0 + sent, request.count - sent, Int32(MSG_NOSIGNAL)) } ?? -1 }
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

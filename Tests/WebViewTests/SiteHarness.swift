import Foundation
import Inspector
import ManagedStore
import TestSupport
import XCTest
@testable import WebView

/// A web view of a copy of a store, answered in the test's own process (no server, no
/// socket): requests go straight to the `Site`, as `cdinspect browse`'s server hands them
/// over. The gate's token is known, so a test can be signed in or not as it likes.
final class SiteHarness {
    static let port = 4242
    static let token = String(repeating: "ab", count: 32)
    static let csrf = String(repeating: "cd", count: 32)

    let folder: URL
    let path: String
    let site: Site

    /// A site of a copy of `store` (the example store by default); `prepare` may change the
    /// copy (with the sqlite3 shell) before the site opens it.
    init(copying store: URL? = nil, writes: Bool = false, compare: String? = nil, prepare: (String) throws -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = store ?? Self.packageRoot.appendingPathComponent("Examples/People.sqlite")
        let copy = folder.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: copy)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: copy.path + suffix)
        }
        path = copy.path
        try prepare(path)
        var options = Site.Options(storePath: path, storeOptions: .init(readonly: true))
        options.writes = writes
        options.compareWith = compare
        site = try Site(options: options, gate: AccessGate(port: Self.port, token: Self.token, csrfToken: Self.csrf),
                        store: try PersistentStore(path: path, options: .init(readonly: true)))
    }

    deinit {
        site.close()
        try? FileManager.default.removeItem(at: folder)
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The headers of a signed-in browser on this server.
    static var signedIn: [(name: String, value: String)] {
        [("Host", "127.0.0.1:\(port)"), ("Cookie", "cdinspect-browse-\(port)=\(token)")]
    }

    func get(_ target: String, headers: [(name: String, value: String)] = SiteHarness.signedIn) -> WebResponse {
        site.respond(WebRequest(method: "GET", target: target, headers: headers))
    }

    /// A form POST from this server's own page (same origin, the CSRF token).
    func post(_ target: String, _ fields: [(String, String)], csrf: String = SiteHarness.csrf,
              headers: [(name: String, value: String)] = SiteHarness.signedIn + [("Sec-Fetch-Site", "same-origin"), ("Origin", "http://127.0.0.1:\(port)")]) -> WebResponse {
        let body = ([("csrf", csrf)] + fields).map { QueryItems.encode($0.0) + "=" + QueryItems.encode($0.1) }.joined(separator: "&")
        return site.respond(WebRequest(method: "POST", target: target, headers: headers + [("Content-Type", "application/x-www-form-urlencoded")],
                                       body: Array(body.utf8)))
    }

    /// A page's text; a streamed body is read whole.
    static func text(_ response: WebResponse) -> String {
        String(decoding: bytes(response), as: UTF8.self)
    }

    static func bytes(_ response: WebResponse) -> [UInt8] {
        switch response.body {
        case .bytes(let bytes): return bytes
        case .stream(let write):
            let collector = Collector()
            try? write(collector)
            return collector.bytes
        }
    }

    final class Collector: ResponseWriter, @unchecked Sendable {
        private let lock = NSLock()
        private var gathered: [UInt8] = []
        var bytes: [UInt8] { lock.withLock { gathered } }
        func write(_ bytes: [UInt8]) throws { lock.withLock { gathered += bytes } }
    }

    /// A JSON twin, parsed.
    func json(_ target: String) throws -> Any {
        let response = get(target)
        XCTAssertEqual(response.status, 200, "\(target): \(Self.text(response).prefix(300))")
        return try JSONSerialization.jsonObject(with: Data(Self.bytes(response)))
    }

    /// Runs the sqlite3 shell on the copy.
    @discardableResult
    static func sqlite(_ path: String, _ sql: String) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-sqlite-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let shell = try ChildProcess(["/usr/bin/env", "sqlite3", path, sql], environment: ProcessInfo.processInfo.environment, files: [1: output.path])
        let status = shell.wait().status
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 else { throw ChildProcess.failure("sqlite3 exited with \(status): \(text)", code: 0) }
        return text
    }
}

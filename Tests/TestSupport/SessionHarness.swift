import Foundation
import Inspector
import ManagedStore

/// A session run inside the test's own process: each line goes through the interpreter as a
/// script's line does, and what it prints and warns is collected. For the meaning of
/// commands (what a fetch returns, what a save does to the next fetch); argv, terminals,
/// signals, MCP pipes and files on disk stay with the end-to-end tests, which run the binary.
public final class SessionHarness {
    public let session: Session
    private let interpreter: Interpreter
    private let sink: OutputSink
    private let warnings = WarningLog()
    /// The folder holding the store's copy, removed with the harness.
    public let folder: URL

    /// A session on a fresh copy of `Examples/People.sqlite` (fifty people with their cars
    /// and tags), or of `store` when given.
    public init(copying store: URL? = nil, format: OutputFormat = .table, readonly: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-harness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = store ?? Self.packageRoot.appendingPathComponent("Examples/People.sqlite")
        let copy = folder.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: copy)
        sink = OutputSink(collectingWithWidth: nil)
        let log = warnings
        session = Session(store: try PersistentStore(path: copy.path, options: .init(readonly: readonly)), format: format,
                          output: sink, warn: { log.append($0) })
        interpreter = Interpreter(session: session)
    }

    deinit {
        session.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The session's output format, as the `format` command sets it.
    public var format: OutputFormat {
        get { session.format }
        set { session.format = newValue }
    }

    /// Runs `line` and returns what it printed; a failing command throws its error, as a
    /// script stops on it. (The session flushes its output after every command.)
    @discardableResult
    public func run(_ line: String) throws -> String {
        let before = sink.collected.count
        try interpreter.execute(line: line)
        return String(decoding: sink.collected[before...], as: UTF8.self)
    }

    /// Runs `line` and returns its answer as values (a `ResultCollector`), not text.
    public func collect(_ line: String) throws -> ResultCollector {
        let collector = ResultCollector()
        sink.resultReceiver = collector
        defer { sink.resultReceiver = nil }
        try interpreter.execute(line: line)
        return collector
    }

    /// Warnings said since the session opened, oldest first.
    public var warned: [String] { warnings.lines }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

private final class WarningLog: @unchecked Sendable {
    private(set) var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
}

import Foundation
import ManagedStore

/// Graphviz's `dot`, which lays a diagram's DOT out as SVG: run as a child process when it is
/// installed (it is not a library of the build), with the DOT on its standard input, a time
/// limit and a bound on what it may print. Its SVG is checked to hold no script before anyone
/// embeds it: the names in it are the store's.
public enum Graphviz {
    public enum Failure: Error, CustomStringConvertible, Equatable {
        case notInstalled
        case failed(String)

        public var description: String {
            switch self {
            case .notInstalled:
                return "the SVG is drawn by Graphviz's dot, which is not installed (apt-get install graphviz, brew install graphviz); "
                    + "--format mermaid and --format dot need nothing"
            case .failed(let why): return "Graphviz's dot could not draw the diagram: \(why)"
            }
        }
    }

    /// How long `dot` may take, and how much SVG it may write.
    static let timeLimit: TimeInterval = 60
    static let outputLimit = 64 << 20

    /// `dot` on PATH, or nil.
    public static var path: String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = String(folder) + "/dot"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The SVG `dot -Tsvg` draws for `dot`.
    public static func svg(_ source: String) throws -> String {
        guard let path else { throw Failure.notInstalled }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-Tsvg"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { throw Failure.failed(error.localizedDescription) }
        // A cancelled work item stays queued until its deadline: had it held the process, each
        // drawing would keep its process and pipes' descriptors for a minute after it ended.
        let deadline = Deadline(process)
        let timer = DispatchWorkItem { deadline.stop() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: timer)
        defer {
            timer.cancel()
            deadline.letGo()
        }
        // Written on its own thread: dot may fill its output before it has read all its input.
        let writer = Thread {
            input.fileHandleForWriting.writeIgnoringErrors(Data(source.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let svg = read(output.fileHandleForReading)
        let complaint = String(decoding: read(errors.fileHandleForReading).prefix(2000), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            if deadline.stopped { throw Failure.failed("it took longer than \(Int(timeLimit)) seconds") }
            throw Failure.failed(complaint.split(separator: "\n").first.map(String.init) ?? "it stopped (status \(process.terminationStatus))")
        }
        guard svg.count <= outputLimit else { throw Failure.failed("the drawing is larger than \(outputLimit >> 20) MiB") }
        let text = String(decoding: svg, as: UTF8.self)
        let lowered = text.lowercased()
        guard !lowered.contains("<script"), !lowered.contains("javascript:"), !lowered.contains("<foreignobject") else {
            throw Failure.failed("its SVG holds a script or foreign content, which is not shown")
        }
        return text
    }

    /// The process the time limit stops, held only until the drawing is done.
    private final class Deadline: @unchecked Sendable {
        private let lock = NSLock()
        private var process: Process?
        private var didStop = false

        init(_ process: Process) { self.process = process }

        /// Stops the process, if it is still held: the time limit passed.
        func stop() {
            lock.withLock {
                guard let process else { return }
                didStop = true
                process.terminate()
            }
        }

        func letGo() { lock.withLock { process = nil } }
        var stopped: Bool { lock.withLock { didStop } }
    }

    /// What a pipe gives until it ends, or a byte past the output limit.
    private static func read(_ handle: FileHandle) -> Data {
        var data = Data()
        while data.count <= outputLimit {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            data += chunk
        }
        return data
    }
}

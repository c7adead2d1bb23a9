import Foundation
import XCTest

/// Runs the built `cdinspect` (and the example generator) as a user would, capturing output.
enum CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        /// The process ended on a signal (a crash: SIGILL from a Swift trap, SIGSEGV, SIGABRT).
        var signaled = false
    }

    static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        fatalError("no .xctest bundle")
        #else
        return Bundle.main.bundleURL
        #endif
    }

    /// The `cdinspect` under test: this build's, or `CDINSPECT_BINARY` (CI runs the REPL tests
    /// again on a build with another line editor).
    static var binary: URL {
        if let override = ProcessInfo.processInfo.environment["CDINSPECT_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return productsDirectory.appendingPathComponent("cdinspect")
    }
    static var generator: URL { productsDirectory.appendingPathComponent("cdi-example-store") }

    @discardableResult
    /// `timeout`: the process is killed (SIGKILL, so `signaled`) if it runs longer: a hang.
    static func run(_ arguments: [String], stdin: String? = nil, executable: URL = binary,
                    environment: [String: String] = [:], prefix: [String] = [], timeout: TimeInterval? = nil) throws -> Result {
        let process = Process()
        if prefix.isEmpty {
            process.executableURL = executable
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: prefix[0])
            process.arguments = Array(prefix.dropFirst()) + [executable.path] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer) }
        defer { killer.cancel() }
        // Read both pipes while writing standard input, so that neither side can stall on a
        // full pipe. `outData` is written on the other thread before `leave` and read after
        // `wait`. A process that exits before reading all its input must not end this one
        // with SIGPIPE: the write fails instead, and is ignored.
        signal(SIGPIPE, SIG_IGN)
        nonisolated(unsafe) var outData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let writer = input.fileHandleForWriting
        group.enter()
        DispatchQueue.global().async {
            if let stdin { try? writer.write(contentsOf: Data(stdin.utf8)) }
            try? writer.close()
            group.leave()
        }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self),
                      signaled: process.terminationReason == .uncaughtSignal)
    }

    static func json(_ arguments: [String]) throws -> Any {
        let result = try run(arguments)
        guard result.status == 0 else {
            throw NSError(domain: "cdinspect", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }
}

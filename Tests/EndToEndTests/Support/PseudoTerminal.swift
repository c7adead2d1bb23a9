import Foundation
import XCTest

/// The built `cdinspect` on a pseudo-terminal, as a person at a terminal runs it. util-linux
/// `script` makes the terminal and makes it the controlling one, so a Ctrl-C typed here
/// goes through the terminal's line discipline and arrives as SIGINT, as from a keyboard.
final class PseudoTerminal {
    private let process = Process()
    private let input = Pipe()
    let screen: OutputBuffer

    init(_ arguments: [String], environment: [String: String]) throws {
        let command = ([CLI.binary.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        // An 80-column terminal, whatever runs the tests.
        process.arguments = ["-qfec", "stty cols 80 rows 24; exec " + command.joined(separator: " "), "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm"
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        screen = OutputBuffer(output)
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Keys as typed: `\t` is Tab, `\u{03}` Ctrl-C, `\u{04}` Ctrl-D, `\r` Return.
    func type(_ keys: String) {
        input.fileHandleForWriting.write(Data(keys.utf8))
    }

    @discardableResult
    func expect(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        screen.expect(text, file: file, line: line)
    }

    var seen: String { screen.text }

    func wait() -> Int32? { process.exitStatus() }
}

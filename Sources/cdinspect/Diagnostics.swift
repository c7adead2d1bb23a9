import ArgumentParser
import Foundation
import Inspector
import ManagedStore

enum Diagnostics {
    static func error(_ message: String) {
        let label = Terminal.usesColor(STDERR_FILENO) ? "\u{1B}[31mcdinspect: error:\u{1B}[0m " : "cdinspect: error: "
        FileHandle.standardError.writeIgnoringErrors(Data((label + message + "\n").utf8))
    }

    /// A line of the SQL debug log, as Core Data writes it to the console.
    static func log(_ line: String) {
        FileHandle.standardError.writeIgnoringErrors(Data((line + "\n").utf8))
    }

    static func warning(_ message: String) {
        FileHandle.standardError.writeIgnoringErrors(Data(("cdinspect: warning: " + message + "\n").utf8))
    }

    /// Runs `body`, reporting a failure the one way every front end does and turning it
    /// into the exit status for it.
    static func reporting(_ body: () throws -> Void) throws {
        do { try body() } catch {
            if let line = ExitStatus.errorLine(for: error) { Diagnostics.error(line) }
            throw ExitCode(ExitStatus.code(for: error))
        }
    }
}

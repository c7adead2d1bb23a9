import Foundation

/// Runs a script: physical lines joined where one ends in `\`, each logical line executed in
/// turn. The first failure stops the run unless `keepGoing`; errors name the line they came from.
public struct ScriptRunner {
    public let interpreter: Interpreter
    public var keepGoing = false
    public var echo = false
    /// Called with each failure (its line number and the error) before the run goes on or stops.
    public var report: (Int, Error) -> Void

    public init(interpreter: Interpreter, keepGoing: Bool = false, echo: Bool = false,
                report: @escaping (Int, Error) -> Void) {
        self.interpreter = interpreter
        self.keepGoing = keepGoing
        self.echo = echo
        self.report = report
    }

    /// Returns the first error, or `nil` when every line ran.
    public func run(lines: some Sequence<String>) -> Error? {
        var firstError: Error?
        var pending = ""
        var startLine = 0
        var number = 0
        for raw in lines {
            number += 1
            if pending.isEmpty { startLine = number }
            var line = raw
            // A script saved on Windows: a byte order mark first, CRLF line ends.
            if number == 1, line.hasPrefix("\u{FEFF}") { line.removeFirst() }
            if line.hasSuffix("\r") { line.removeLast() }
            if line.hasSuffix("\\") && !line.hasSuffix("\\\\") {
                pending += line.dropLast() + " "
                continue
            }
            let logical = pending + line
            pending = ""
            if let error = runLine(logical, number: startLine) {
                firstError = firstError ?? error
                if !keepGoing { return error }
            }
            if interpreter.finished { return firstError }
        }
        if !pending.isEmpty, let error = runLine(pending, number: startLine) {
            firstError = firstError ?? error
        }
        return firstError
    }

    private func runLine(_ line: String, number: Int) -> Error? {
        guard !line.contains("\0") else {
            let error = CommandError.failed("the line holds a NUL byte, which no command takes")
            report(number, error)
            return error
        }
        if echo, !line.trimmingCharacters(in: .whitespaces).isEmpty {
            interpreter.session.output.line("> " + line)
        }
        do {
            try interpreter.execute(line: line)
            return nil
        } catch {
            interpreter.session.output.flush()
            report(number, error)
            return error
        }
    }
}

/// Lines of a file handle, read as they arrive so a driving program can talk to cdinspect
/// one line at a time.
public struct LineReader: Sequence, IteratorProtocol {
    /// nil: no lines (standard input that could not be opened as a stream).
    private let file: UnsafeMutablePointer<FILE>?

    public init(file: UnsafeMutablePointer<FILE>?) {
        self.file = file
    }

    /// Standard input's lines.
    public static func standardInput() -> LineReader {
        LineReader(file: fdopen(STDIN_FILENO, "r"))
    }

    public mutating func next() -> String? {
        guard let file else { return nil }
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else { return nil }
        // Decoded with its length, so a NUL byte stays in the line (and is refused) instead
        // of silently ending it. The line end goes first, as bytes: to a String, "\r\n" is
        // one character, which neither "\r" nor "\n" matches.
        var bytes = UnsafeRawBufferPointer(start: buffer, count: count)[...]
        if bytes.last == UInt8(ascii: "\n") { bytes = bytes.dropLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

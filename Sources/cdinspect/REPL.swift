import Foundation
import Inspector
import ManagedStore

/// The interactive loop on a terminal. The loop waits on the terminal and on a pipe that the
/// Ctrl-C handler writes to when no command runs, so Ctrl-C at the prompt clears the line,
/// while Ctrl-C during a command stops the command (`Interrupts`) and the prompt comes back.
final class REPL {
    let interpreter: Interpreter
    private let history = HistoryFile.standard()
    private let completer: Completer
    /// A line ending in `\` waits here for the rest of the command.
    private var pending = ""
    private var ended = false
    private var wake: [Int32] = [-1, -1]

    init(interpreter: Interpreter) {
        self.interpreter = interpreter
        completer = Completer(session: interpreter.session)
    }

    func run() throws {
        pipe(&wake)
        let wakeWriter = wake[1]
        Interrupts.install { var byte: UInt8 = 1; _ = write(wakeWriter, &byte, 1) }
        let completer = self.completer
        LineEditor.configure(historyLimit: HistoryFile.limit) { before, word in
            let candidates = completer.candidates(line: before, wordStart: before.count, word: word)
            // A relationship goes on with a dot: no space after it.
            return (candidates, !(candidates.first?.hasSuffix(".") ?? false))
        }
        for line in history?.load() ?? [] { LineEditor.remember(line) }
        showPrompt()
        while !ended && !interpreter.finished {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[1].revents & Int16(POLLIN) != 0 { clearLine() }
            if fds[0].revents & Int16(POLLIN | POLLHUP) != 0 { LineEditor.readAvailableInput() }
        }
        LineEditor.finish()
    }

    private var prompt: String {
        if !pending.isEmpty { return "   ...> " }
        let context = interpreter.session.contexts.current
        let pin = context.readingGeneration.map { "@" + $0.token } ?? ""
        return "cdinspect \(context.name)\(pin)> "
    }

    private func showPrompt() {
        LineEditor.prompt(prompt) { [unowned self] line in accept(line) }
    }

    /// Ctrl-C with no command running: the line, and any continuation, are dropped.
    private func clearLine() {
        var buffer = [UInt8](repeating: 0, count: 64)
        _ = read(wake[0], &buffer, buffer.count)
        pending = ""
        LineEditor.discardLine(prompt: prompt)
    }

    private func accept(_ line: String?) {
        LineEditor.finish()
        guard let line else {
            // Ctrl-D: leave, with status 0.
            print()
            ended = true
            return
        }
        defer { if !ended && !interpreter.finished { showPrompt() } }
        if line.hasSuffix("\\") && !line.hasSuffix("\\\\") {
            pending += line.dropLast() + " "
            return
        }
        let logical = pending + line
        pending = ""
        guard !logical.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        LineEditor.remember(logical)
        history?.append(logical)
        do { try interpreter.execute(line: logical) } catch {
            interpreter.session.output.flush()
            if let line = ExitStatus.errorLine(for: error) { Diagnostics.error(line) }
        }
    }
}

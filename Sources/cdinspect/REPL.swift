import CReadline
import Foundation
import Inspector
import ManagedStore

/// The interactive loop on a terminal, on GNU readline's callback interface. The loop
/// waits on the terminal and on a pipe that the Ctrl-C handler writes to when no command
/// runs, so Ctrl-C at the prompt clears the line, while Ctrl-C during a command stops the
/// command (`Interrupts`) and the prompt comes back.
final class REPL {
    let interpreter: Interpreter
    private let history = HistoryFile.standard()
    private let completer: Completer
    /// A line ending in `\` waits here for the rest of the command.
    private var pending = ""
    private var ended = false
    private var wake: [Int32] = [-1, -1]
    /// Readline calls back through C function pointers, which cannot capture.
    private static var current: REPL?
    private static var matches: [String] = []

    init(interpreter: Interpreter) {
        self.interpreter = interpreter
        completer = Completer(session: interpreter.session)
    }

    func run() throws {
        REPL.current = self
        pipe(&wake)
        let wakeWriter = wake[1]
        Interrupts.install { var byte: UInt8 = 1; _ = write(wakeWriter, &byte, 1) }
        rl_catch_signals = 0
        rl_readline_name = UnsafePointer(strdup("cdinspect"))
        rl_basic_word_break_characters = UnsafePointer(strdup(" \t\n\"'=<>!(),{}"))
        // A quote only starts a word (a predicate being typed): readline must not take the
        // quoted text as one word, nor add the quote back after a completion.
        rl_basic_quote_characters = UnsafePointer(strdup(""))
        rl_attempted_completion_function = { text, start, _ in REPL.complete(text, start) }
        history?.load()
        showPrompt()
        while !ended && !interpreter.finished {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[1].revents & Int16(POLLIN) != 0 { clearLine() }
            if fds[0].revents & Int16(POLLIN | POLLHUP) != 0 { rl_callback_read_char() }
        }
        rl_callback_handler_remove()
    }

    private var prompt: String {
        if !pending.isEmpty { return "   ...> " }
        let context = interpreter.session.contexts.current
        let pin = context.readingGeneration.map { "@" + $0.token } ?? ""
        return "cdinspect \(context.name)\(pin)> "
    }

    private func showPrompt() {
        rl_callback_handler_install(prompt) { REPL.current?.accept($0) }
    }

    /// Ctrl-C with no command running: the line, and any continuation, are dropped.
    private func clearLine() {
        var buffer = [UInt8](repeating: 0, count: 64)
        _ = read(wake[0], &buffer, buffer.count)
        pending = ""
        rl_replace_line("", 0)
        rl_crlf()
        rl_set_prompt(prompt)
        rl_on_new_line()
        rl_redisplay()
    }

    private func accept(_ raw: UnsafeMutablePointer<CChar>?) {
        rl_callback_handler_remove()
        guard let raw else {
            // Ctrl-D: leave, with status 0.
            print()
            ended = true
            return
        }
        let line = String(cString: raw)
        free(raw)
        defer { if !ended && !interpreter.finished { showPrompt() } }
        if line.hasSuffix("\\") && !line.hasSuffix("\\\\") {
            pending += line.dropLast() + " "
            return
        }
        let logical = pending + line
        pending = ""
        guard !logical.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        add_history(logical)
        history?.append()
        do { try interpreter.execute(line: logical) } catch {
            interpreter.session.output.flush()
            Diagnostics.error(ExitStatus.message(for: error))
        }
    }

    private static func complete(_ text: UnsafePointer<CChar>?, _ start: Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard let repl = current, let text, let buffer = rl_line_buffer else { return nil }
        rl_attempted_completion_over = 1
        let line = String(cString: buffer)
        let before = String(decoding: Array(line.utf8).prefix(Int(start)), as: UTF8.self)
        matches = repl.completer.candidates(line: before, wordStart: before.count, word: String(cString: text))
        // A relationship goes on with a dot: no space after it.
        if matches.count == 1, matches[0].hasSuffix(".") { rl_completion_suppress_append = 1 }
        return rl_completion_matches(text) { _, state in
            let index = Int(state)
            guard index < REPL.matches.count else { return nil }
            return strdup(REPL.matches[index])
        }
    }
}

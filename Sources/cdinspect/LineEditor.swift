#if Readline && Editline
#error("Build with one line editor: the Readline trait (the default) or the Editline trait, not both.")
#elseif Readline
import CReadline
#elseif Editline
import CEditline
#endif
import Foundation
import ManagedStore

/// The REPL's line editor: GNU readline, libedit's readline emulation, or, built with neither
/// (`--disable-default-traits`), plain lines from the terminal as sqlite's shell reads them
/// without an editor. The REPL sees one interface; only this file and
/// `Sources/CLineEditor/line_editor.h` know which library is underneath.
///
/// The editor is driven by the callback interface, so the REPL's own loop decides when to
/// read a key and can also wake on Ctrl-C.
enum LineEditor {
    /// What to do with a finished line; nil at end of input (Ctrl-D on an empty line).
    typealias LineHandler = (String?) -> Void
    /// Candidates for `word`, typed after `lineBefore`, and whether a space follows a sole
    /// candidate (no space after a relationship, which goes on with a dot).
    typealias Completion = (_ lineBefore: String, _ word: String) -> (candidates: [String], appendSpace: Bool)

    // The C libraries call back through function pointers, which cannot capture context,
    // so the handlers live here. Only the main thread's REPL loop sets or calls them: the
    // editor runs its callbacks inside `readAvailableInput`, on that thread.
    nonisolated(unsafe) private static var lineHandler: LineHandler?
    nonisolated(unsafe) private static var completion: Completion?
    nonisolated(unsafe) private static var matches: [String] = []

    /// Which library edits lines, for `--version`.
    static var name: String {
        #if Readline || Editline
        String(cString: cdi_line_editor_name())
        #else
        "none"
        #endif
    }

    /// Sets the program name for `~/.inputrc` or `~/.editrc` conditionals, what ends a word
    /// for completion, the completion, and how many lines the history keeps; call once,
    /// before the first prompt.
    static func configure(historyLimit: Int, completion: @escaping Completion) {
        LineEditor.completion = completion
        #if Readline || Editline
        // The editor keeps both pointers: they are never freed.
        cdi_line_editor_configure(strdup("cdinspect"), strdup(" \t\n\"'=<>!(),{}"), { text, start, _ in
            LineEditor.complete(text, start: Int(start))
        }, Int32(historyLimit))
        #endif
    }

    /// Shows `prompt` and edits a line; `handler` gets it once Return is pressed.
    static func prompt(_ prompt: String, then handler: @escaping LineHandler) {
        lineHandler = handler
        #if Readline || Editline
        cdi_line_editor_install(prompt) { line in
            let text = line.map { String(cString: $0) }
            free(line)
            LineEditor.lineHandler?(text)
        }
        #else
        PlainLines.prompt(prompt)
        #endif
    }

    /// Reads what the terminal has, calling the handler for each line finished; call when
    /// standard input is readable.
    static func readAvailableInput() {
        #if Readline || Editline
        cdi_line_editor_read()
        #else
        PlainLines.read { LineEditor.lineHandler?($0) }
        #endif
    }

    /// Stops editing, before a command runs or when the REPL ends.
    static func finish() {
        #if Readline || Editline
        cdi_line_editor_remove()
        #endif
    }

    /// Drops the line typed so far (Ctrl-C at the prompt) and shows `prompt` on a new line.
    /// Removing and installing the handler again is what resets the line in every editor.
    static func discardLine(prompt: String) {
        finish()
        FileHandle.standardOutput.writeIgnoringErrors(Data("\n".utf8))
        #if !(Readline || Editline)
        PlainLines.discard()
        #endif
        if let handler = lineHandler { LineEditor.prompt(prompt, then: handler) }
    }

    /// Adds `line` to the lines Up and Ctrl-P go back to.
    static func remember(_ line: String) {
        #if Readline || Editline
        cdi_history_add(line)
        #endif
    }

    #if Readline || Editline
    private static func complete(_ text: UnsafePointer<CChar>?, start: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        guard let completion, let text, let buffer = cdi_line_buffer() else { return nil }
        let before = String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self),
                                                          count: min(start, strlen(buffer))), as: UTF8.self)
        let found = completion(before, String(cString: text))
        matches = found.candidates
        cdi_completion_settle(found.candidates.count == 1 && !found.appendSpace ? 0 : 1)
        return cdi_completion_matches(text) { _, state in
            let index = Int(state)
            guard index < LineEditor.matches.count else { return nil }
            return strdup(LineEditor.matches[index])
        }
    }
    #endif
}

#if !(Readline || Editline)
/// Lines as the terminal's own line discipline edits them: no completion, no history.
private enum PlainLines {
    /// Touched only by the REPL loop's thread, like `LineEditor`'s handlers.
    nonisolated(unsafe) private static var partial: [UInt8] = []

    static func prompt(_ prompt: String) {
        FileHandle.standardOutput.writeIgnoringErrors(Data(prompt.utf8))
    }

    static func discard() {
        partial.removeAll()
    }

    static func read(_ deliver: (String?) -> Void) {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = Foundation.read(STDIN_FILENO, &chunk, chunk.count)
        guard count > 0 else {
            deliver(partial.isEmpty ? nil : String(decoding: partial, as: UTF8.self))
            partial.removeAll()
            return
        }
        partial += chunk[..<count]
        while let end = partial.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: partial[..<end], as: UTF8.self)
            partial.removeSubrange(...end)
            deliver(line)
        }
    }
}
#endif

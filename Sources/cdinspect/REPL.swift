import CReadline
import Foundation
import Inspector

/// The interactive loop on a terminal, on GNU readline.
struct REPL {
    let interpreter: Interpreter

    func run() throws {
        while !interpreter.finished {
            guard let raw = readline("cdinspect> ") else { print(); return }
            let line = String(cString: raw)
            free(raw)
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            add_history(line)
            do { try interpreter.execute(line: line) } catch {
                interpreter.session.output.flush()
                Diagnostics.error(ExitStatus.message(for: error))
            }
        }
    }
}

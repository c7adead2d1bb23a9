import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// `cdinspect STORE`: a session, fed by `-c`, by a script on stdin, or by a person at the REPL.
struct SessionSubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Open STORE and run commands: from -c, from standard input, or at the REPL on a terminal.",
        shouldDisplay: false)

    @OptionGroup var options: StoreOptions

    @Option(name: .short, help: ArgumentHelp("Run a command, then exit; repeat for several.", valueName: "command"))
    var commands: [String] = []

    @Option(name: .long, help: "Default output format: table, json, csv or line.",
            transform: { try OutputFormat(parsing: $0) })
    var format: OutputFormat = .table

    @Flag(name: .long, help: "In a script, run the remaining commands after one fails (exit status 1 at the end).")
    var keepGoing = false

    @Flag(name: .long, help: "In a script, print each command before its output.")
    var echo = false

    func run() throws {
        var session: Session!
        try Diagnostics.reporting {
            session = Session(store: try options.openStore(session: true), format: format,
                              output: Terminal.standardOutput(), warn: Diagnostics.warning)
        }
        let interpreter = Interpreter(session: session)
        if commands.isEmpty && Terminal.isInteractive {
            try REPL(interpreter: interpreter).run()
            return
        }
        Interrupts.install()
        defer { Teardown.closeAndKeep(session) }
        let fromScript = commands.isEmpty
        let runner = ScriptRunner(interpreter: interpreter, keepGoing: keepGoing, echo: echo) { line, error in
            guard let message = ExitStatus.errorLine(for: error) else { return }
            Diagnostics.error((fromScript ? "line \(line): " : "") + message)
        }
        let error = fromScript ? runner.run(lines: LineReader.standardInput())
                               : runner.run(lines: commands)
        if let error { throw ExitCode(ExitStatus.code(for: error)) }
    }
}

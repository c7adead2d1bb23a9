import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// The `cdinspect` command: a session on a store (REPL, stdin script or `-c`) by default,
/// or one of the one-shot subcommands.
struct CDInspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdinspect",
        abstract: "Inspect Core Data SQLite stores: entities, fetches with NSPredicate, contexts and query generations.",
        discussion: """
            With only STORE, cdinspect reads commands from a terminal (a REPL) or from standard input \
            (a script). 'cdinspect STORE -c CMD' runs commands and exits. 'help' inside a session lists \
            the commands; 'man cdinspect' describes everything.
            """,
        version: "\(version) (SQLite \(StoreFile.sqliteVersion), line editor: \(LineEditor.name))",
        subcommands: [SessionSubcommand.self] + OneShotCommands.all + OneShotCommands.executableOnly.map(\.command),
        defaultSubcommand: SessionSubcommand.self)

    static let version = "0.1.0"

    /// The command a command line names, parsed on its own: a subcommand by its name,
    /// else the session (the default subcommand). Building the whole command tree reflects
    /// over every subcommand's options, which costs more than a count on a small store
    /// takes. Whatever this parse refuses (help, `--version`, a usage error) is parsed
    /// again from the root, which words it as it always has; nil then.
    /// `parseAsRoot` rather than `parse`, which first casts the type to `ParsableCommand`:
    /// a walk over every protocol conformance in the binary on every start.
    static func parseAlone(_ arguments: [String]) -> ParsableCommand? {
        guard let first = arguments.first, first != "---completion" else { return nil }
        if let subcommand = OneShotCommands.subcommand(named: first) {
            return try? subcommand.parseAsRoot(Array(arguments.dropFirst()))
        }
        return try? SessionSubcommand.parseAsRoot(arguments)
    }

    /// `cdinspect fetchh STORE Person`: a first word that is no command and no file, one or
    /// two letters from a command's name, is a misspelt command, not a store (the parser
    /// would take it for the store and call the rest unexpected arguments).
    /// It runs at every start, so the file is looked for with stat(2) alone, and the names
    /// compared only when there is none.
    static func checkCommandName(_ arguments: [String]) throws {
        var info = stat()
        guard arguments.count >= 2, let first = arguments.first, !first.hasPrefix("-"), !first.contains("/"),
              OneShotCommands.subcommand(named: first) == nil, stat(first, &info) != 0 else { return }
        let names = configuration.subcommands.map { $0._commandName }.filter { $0 != "session" }
        guard !names.contains(first), let near = Spelling.nearest(first, in: names) else { return }
        Diagnostics.error("unknown command '\(first)' (did you mean '\(near)'?)")
        throw ExitCode(ExitStatus.usage)
    }

    /// `cdinspect model export Store.sqlite out`: a view of the command where the store goes,
    /// and no file of that name, is the store and the view the wrong way round. Said with the
    /// user's own words in the order the command reads them.
    static func checkViewOrder(_ arguments: [String]) throws {
        guard arguments.count >= 2, let command = CommandTable.commands.first(where: { $0._commandName == arguments[0] }),
              command.traits.views.contains(arguments[1]), !FileManager.default.fileExists(atPath: arguments[1]) else { return }
        var order = ["cdinspect", arguments[0], "STORE", arguments[1]]
        if arguments.count >= 3, !arguments[2].hasPrefix("-") {
            order = ["cdinspect", arguments[0], arguments[2], arguments[1]] + arguments.dropFirst(3)
        }
        let quoted = order.map { $0.contains(where: { " \t'\"$\\".contains($0) }) ? "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" : $0 }
        Diagnostics.error("the store comes before '\(arguments[1])': \(quoted.joined(separator: " "))")
        throw ExitCode(ExitStatus.usage)
    }

    /// Parses and runs, printing errors as `cdinspect: error: …` and exiting with the status
    /// `ExitStatus` assigns.
    static func start(_ arguments: [String]) -> Never {
        let status: Int32
        // A file-size limit (`ulimit -f`) or a full quota: a write that passes it fails with
        // EFBIG, and the write in progress stops with its one-line error and rolls back,
        // instead of the process being killed by SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        var arguments = Overview.handle(arguments) ?? arguments
        // `cdinspect fetch STORE Person where 'age > 70'`, as a session line reads it.
        arguments = CommandLineSplitter.whereClauseArguments(arguments) { Interpreter.whereCommands.contains($0) } ?? arguments
        do {
            try checkCommandName(arguments)
            try checkViewOrder(arguments)
            var command = try parseAlone(arguments) ?? parseAsRoot(arguments)
            try command.run()
            status = ExitStatus.success
        } catch let exit as ExitCode {
            status = exit.rawValue
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                status = ExitStatus.success
            } else {
                // One error line and the usage line: the parser's full message repeats
                // "Error:" and adds the option's help, which `--help` gives.
                // Some of the parser's messages span lines ("Please use … with one of:").
                let lines = message(for: error).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                Diagnostics.error(lines.joined(separator: " "))
                let usage = fullMessage(for: error).split(separator: "\n").first { $0.hasPrefix("Usage: ") }
                if let usage {
                    // The session is the default subcommand, typed without its hidden name.
                    let shown = usage.replacingOccurrences(of: "Usage: cdinspect session ", with: "Usage: cdinspect ")
                    FileHandle.standardError.writeIgnoringErrors(Data((shown + "\n").utf8))
                }
                status = ExitStatus.usage
            }
        }
        Foundation.exit(status)
    }
}

import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// What `cdinspect`, `cdinspect --help` and `cdinspect help` print: what the tool is, the
/// three ways to run it, and every subcommand in its group with the one-line abstract its
/// own declaration gives (nothing here repeats a command's words).
enum Overview {
    /// The subcommands by group, in the order the overview lists them: each session command
    /// in the group its declaration names (`CommandTraits.group`, in `CommandTable`'s order),
    /// then the subcommands of the executable alone.
    static let groups: [(title: String, commands: [String])] = OverviewGroup.allCases.map { group in
        let session = CommandTable.commands(in: group).map { $0._commandName }
        let own = OneShotCommands.executableOnly.filter { $0.group == group }.map { $0.command._commandName }
        return (group.rawValue, session + own)
    }

    static var text: String {
        var lines = [
            "cdinspect \(CDInspect.version): " + CDInspect.configuration.abstract,
            "",
            "Run it three ways:",
            "  cdinspect STORE                    a REPL on a terminal; commands from standard input otherwise",
            "  cdinspect STORE -c CMD [-c CMD]    run the commands, then exit",
            "  cdinspect COMMAND STORE …          one command, as below",
            "",
            "STORE is a store file, or an app's bundle identifier or name when 'cdinspect stores' finds one store of it.",
            "Options everywhere: --model PATH, --readonly, --immutable (evidence: no file beside the store created or changed), --sql-debug N,",
            "--format table|json|csv|line, --time-zone ZONE (dates shown in UTC, local, +02:00, Europe/Berlin), --stored-dates (seconds since 2001 beside each);",
            "read commands also --generation TOKEN (a past save the files hold: see 'generations').",
        ]
        let width = groups.flatMap(\.commands).map(\.count).max() ?? 0
        for (title, commands) in groups {
            lines += ["", title + ":"]
            for name in commands {
                guard let command = OneShotCommands.subcommand(named: name) else { continue }
                lines.append("  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.configuration.abstract)
            }
        }
        lines += [
            "",
            "Inside a session, 'help' lists the session's commands as well (contexts, objects, save, pin, …).",
            "'cdinspect help COMMAND' (or 'cdinspect COMMAND --help') describes one command; 'man cdinspect' all of them.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The overview's forms of the command line: nil when `arguments` is none of them.
    /// `help COMMAND` becomes `COMMAND --help`, which the parser answers as usual.
    static func handle(_ arguments: [String]) -> [String]? {
        switch arguments.first {
        case nil:
            // The overview to read, and one error line that says what was missing.
            FileHandle.standardOutput.writeIgnoringErrors(Data(text.utf8))
            Diagnostics.error("no store given: cdinspect STORE, or cdinspect COMMAND STORE with a command above")
            Foundation.exit(ExitStatus.usage)
        case "--help", "-h":
            guard arguments.count == 1 else { return nil }
        case "help":
            if arguments.count == 1 { break }
            if arguments.count == 2, OneShotCommands.subcommand(named: arguments[1]) != nil { return [arguments[1], "--help"] }
            // `help` may also be a store's name: only an unknown command is an error here.
            guard arguments.count == 2, !FileManager.default.fileExists(atPath: arguments[0]) else { return nil }
            let known = groups.flatMap(\.commands)
            let near = Spelling.nearest(arguments[1], in: known).map { " (did you mean '\($0)'?)" } ?? ""
            Diagnostics.error("no command '\(arguments[1])'\(near); 'cdinspect help' lists them")
            Foundation.exit(ExitStatus.usage)
        default:
            return nil
        }
        FileHandle.standardOutput.writeIgnoringErrors(Data(text.utf8))
        Foundation.exit(ExitStatus.success)
    }
}

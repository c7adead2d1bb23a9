import Foundation
import ManagedStore

/// Runs lines of the session language against a session: the one path every front end
/// (REPL, stdin script, `-c`, one-shot subcommand) takes to a command.
public final class Interpreter {
    public let session: Session
    /// Set by `quit`; the front end stops reading.
    public private(set) var finished = false

    public init(session: Session) {
        self.session = session
    }

    /// Commands whose `where` keyword takes the rest of the line as a predicate.
    static let whereCommands: Set<String> = ["fetch", "count", "explain"]

    /// Executes one logical line (continuations already joined). Blank lines and comments do nothing.
    public func execute(line: String) throws {
        var words: [String]
        if let (head, predicate) = CommandLineSplitter.splitWhereClause(line, commands: Interpreter.whereCommands) {
            words = try CommandLineSplitter.words(head) + ["--where", predicate]
        } else {
            words = try CommandLineSplitter.words(line)
        }
        guard let name = words.first else { return }
        switch name {
        case "quit", "exit":
            finished = true
        case "help":
            session.output.write(try Help.text(for: words.dropFirst().first))
            session.output.flush()
        case "sqldebug":
            try setDebugLevel(words.dropFirst())
        case "format":
            guard words.count == 2 else { throw CommandError.usage("usage: format table|json|csv|line") }
            session.format = try OutputFormat(parsing: words[1])
        default:
            do {
                try session.run(try CommandTable.parse(words))
            } catch let help as HelpRequest {
                session.output.line(help.text)
                session.output.flush()
            }
        }
    }
}

extension Interpreter {
    /// `sqldebug [N]`: shows or sets the SQL debug level for the commands that follow.
    func setDebugLevel(_ arguments: ArraySlice<String>) throws {
        guard let log = session.store.log else { throw CommandError.failed("this session has no SQL debug log") }
        guard let word = arguments.first else {
            session.output.line("sqldebug \(log.level)")
            return
        }
        guard arguments.count == 1, let level = Int(word), SQLDebugLog.levels.contains(level) else {
            throw CommandError.usage("usage: sqldebug [0-4]")
        }
        log.level = level
    }
}

/// `help` and `help COMMAND`, from the same declarations the parser uses.
public enum Help {
    public static let sessionCommands: [(String, String)] = [
        ("format F", "Set the output format: table, json, csv or line."),
        ("help [COMMAND]", "List the commands, or show one command's options."),
        ("sqldebug [N]", "Show or set the SQL debug level, 0 (off) to 4, as -com.apple.CoreData.SQLDebug N."),
        ("quit", "Leave the session (Ctrl-D too)."),
    ]

    public static func text(for command: String?) throws -> String {
        if let command {
            if let type = CommandTable.command(named: command) { return type.helpMessage(columns: 100) + "\n" }
            if let builtin = sessionCommands.first(where: { $0.0.split(separator: " ").first.map(String.init) == command }) {
                return "\(builtin.0)\n  \(builtin.1)\n"
            }
            throw CommandError.usage("unknown command '\(command)' (try 'help')")
        }
        var lines = ["Commands (help COMMAND for details):"]
        let entries = CommandTable.commands.map { ($0._commandName, $0.configuration.abstract) } + sessionCommands
        let width = entries.map(\.0.count).max() ?? 0
        for (name, abstract) in entries {
            lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + abstract)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

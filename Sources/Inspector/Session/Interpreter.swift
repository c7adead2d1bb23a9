import Foundation
import ManagedStore

/// Runs lines of the session language against a session: the one path every front end
/// (REPL, stdin script, `-c`, one-shot subcommand) takes to a command.
public final class Interpreter {
    public let session: Session
    /// Set by `quit`; the front end stops reading.
    public private(set) var finished = false
    /// `timer on`: each command's run time is printed after its output.
    public private(set) var timerOn = false
    /// Scripts being run by `read`, innermost last, so a script cannot read itself forever.
    private var reading: [String] = []

    public init(session: Session) {
        self.session = session
    }

    /// Commands whose `where` keyword takes the rest of the line as a predicate.
    public static let whereCommands = Set(CommandTable.commands.filter { $0.traits.takesWhereClause }.map { $0._commandName })

    /// Executes one logical line (continuations already joined). Blank lines and comments do nothing.
    public func execute(line: String) throws {
        // Inside `read`, a Ctrl-C between two commands stops the rest of the script.
        try Cancellation.check()
        var words: [String]
        if let (head, predicate) = CommandLineSplitter.splitWhereClause(line, commands: Interpreter.whereCommands) {
            words = try CommandLineSplitter.words(head) + ["--where", predicate]
        } else if let query = CommandLineSplitter.rawTail(line, command: "sql") {
            // SQL keeps its own quotes: `sql SELECT … WHERE ZNAME = 'x'`.
            words = ["sql", query]
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
        case "timer":
            guard words.count == 2, ["on", "off"].contains(words[1]) else { throw CommandError.usage("usage: timer on|off") }
            timerOn = words[1] == "on"
        case "read":
            guard words.count == 2 else { throw CommandError.usage("usage: read FILE") }
            try read(script: words[1])
        case "format":
            guard words.count == 2 else { throw CommandError.usage("usage: format table|json|csv|line") }
            session.format = try OutputFormat(parsing: words[1])
        case "dates":
            try setDates(words.dropFirst())
        default:
            let start = DispatchTime.now().uptimeNanoseconds
            defer {
                if timerOn {
                    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                    session.output.line(String(format: "Run Time: real %.3f", seconds))
                    session.output.flush()
                }
            }
            do {
                try session.run(try CommandTable.parse(words))
            } catch let help as HelpRequest {
                session.output.line(help.text)
                session.output.flush()
            }
        }
    }

    /// `read FILE`: runs a script in this session; the first failing line stops it, and
    /// the error names the file and line.
    func read(script path: String) throws {
        guard !reading.contains(path) else { throw CommandError.failed("\(path) is already being read (a script cannot read itself)") }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw CommandError.failed("cannot read \(path): it is a directory, not a script")
        }
        guard let file = fopen(path, "r") else {
            throw CommandError.failed("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        Cancellation.commandStarted()
        defer { Cancellation.commandEnded() }
        reading.append(path)
        defer { reading.removeLast() }
        var failure: (Int, Error)?
        _ = ScriptRunner(interpreter: self) { line, error in failure = (line, error) }.run(lines: LineReader(file: file))
        if let (line, error) = failure {
            if Cancellation.isInterruption(error) || error is Finding { throw error }
            throw CommandError.failed("\(path) line \(line): \(ExitStatus.message(for: error))")
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

extension Interpreter {
    /// `dates [ZONE] [stored|plain]`: shows or sets how the commands that follow show dates.
    func setDates(_ arguments: ArraySlice<String>) throws {
        guard !arguments.isEmpty else {
            session.output.line("dates \(session.dates.zone.name) \(session.dates.showsStored ? "stored" : "plain")")
            return
        }
        guard arguments.count <= 2 else { throw CommandError.usage("usage: dates [ZONE] [stored|plain]") }
        var dates = session.dates
        for word in arguments {
            switch word.lowercased() {
            case "stored": dates.showsStored = true
            case "plain": dates.showsStored = false
            default: dates.zone = try DateStyle.zone(parsing: word)
            }
        }
        session.dates = dates
    }
}

/// `help` and `help COMMAND`, from the same declarations the parser uses.
public enum Help {
    public static let sessionCommands: [(String, String)] = [
        ("format F", "Set the output format: table, json, csv or line."),
        ("help [COMMAND]", "List the commands, or show one command's options."),
        ("read FILE", "Run the commands in FILE, stopping at the first that fails."),
        ("dates [ZONE] [stored|plain]", "Show dates in ZONE (UTC, local, +02:00, Europe/Berlin), with or without the stored seconds beside them."),
        ("timer on|off", "Print each command's run time after its output."),
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

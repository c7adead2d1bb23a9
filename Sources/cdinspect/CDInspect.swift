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
        version: "0.1.0 (line editor: \(LineEditor.name))",
        subcommands: [SessionSubcommand.self] + OneShotCommands.all + [StoresSubcommand.self, MCPSubcommand.self],
        defaultSubcommand: SessionSubcommand.self)

    /// The command a command line names, parsed on its own: a subcommand by its name,
    /// else the session (the default subcommand). Building the whole command tree reflects
    /// over every subcommand's options, which costs more than a count on a small store
    /// takes. Whatever this parse refuses (help, `--version`, a usage error) is parsed
    /// again from the root, which words it as it always has; nil then.
    static func parseAlone(_ arguments: [String]) -> ParsableCommand? {
        guard let first = arguments.first, first != "---completion" else { return nil }
        if let subcommand = OneShotCommands.subcommand(named: first) {
            return try? subcommand.parse(Array(arguments.dropFirst()))
        }
        return try? SessionSubcommand.parse(arguments)
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

    /// Parses and runs, printing errors as `cdinspect: error: …` and exiting with the status
    /// `ExitStatus` assigns.
    static func start(_ arguments: [String]) -> Never {
        let status: Int32
        do {
            try checkCommandName(arguments)
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
                    FileHandle.standardError.write(Data((shown + "\n").utf8))
                }
                status = ExitStatus.usage
            }
        }
        Foundation.exit(status)
    }
}

/// Where the store is and how to open it: what every form of the command accepts.
struct StoreLocation: ParsableArguments {
    @Argument(help: "The store: a Core Data .sqlite file (its -wal beside it), any SQLite file, or an app's bundle identifier or name (see 'cdinspect stores').")
    var store: String

    @Flag(name: .long, help: "Refuse every command that would write to the store.")
    var readonly = false

    @Flag(name: .long, help: "Open the store as evidence: SQLite's immutable=1, so no file is created or changed beside it (no -shm, no lock); refused when a -wal with changes is beside it. Implies --readonly.")
    var immutable = false

    // No default value in the declaration: the parser describes a default for help by
    // casting it to protocols at run time, each cast a walk over every conformance in the
    // binary on every start (three for an Int), though help is rarely asked for.
    @Option(name: .long, help: "Core Data SQL debug level, 0 (the default: none) to 4, on stderr (also -com.apple.CoreData.SQLDebug N).")
    var sqlDebug: Int?

    /// The level asked for; 0 logs nothing.
    var sqlDebugLevel: Int { sqlDebug ?? 0 }

    func validate() throws {
        guard (0...4).contains(sqlDebugLevel) else { throw ValidationError("--sql-debug takes a level from 0 to 4") }
    }

    /// Seconds to wait for another process's lock: 2, or `CDINSPECT_BUSY_TIMEOUT` (the
    /// tests shorten it).
    static var busyTimeout: TimeInterval {
        ProcessEnvironment.value("CDINSPECT_BUSY_TIMEOUT").flatMap(Double.init) ?? 2
    }

    /// Opens the store, with a debug log on stderr when one is asked for, and always for a
    /// session, where `sqldebug N` can turn it on later.
    func openStore(session: Bool = false, modelPath: String? = nil) throws -> PersistentStore {
        let log = session || sqlDebugLevel > 0 ? SQLDebugLog(level: sqlDebugLevel, sink: Diagnostics.log) : nil
        return try PersistentStore(path: try StoreSearch.resolve(store),
                                   options: .init(modelPath: modelPath, readonly: readonly, immutable: immutable, busyTimeout: Self.busyTimeout, log: log))
    }
}

/// Options every form of the command accepts: the store, and the model to read it with.
/// (`doctor` takes `--model` as the next model version instead, so its one-shot form has
/// the location alone.)
struct StoreOptions: ParsableArguments {
    @OptionGroup var location: StoreLocation

    @Option(name: .long, help: "An .xcdatamodeld, .xcdatamodel or contents file to use as the model.")
    var model: String?

    func openStore(session: Bool = false) throws -> PersistentStore {
        try location.openStore(session: session, modelPath: model)
    }
}

/// How a one-shot command opens its store.
protocol StoreOpening: ParsableArguments {
    func openStore(session: Bool) throws -> PersistentStore
}

extension StoreOptions: StoreOpening {}
extension StoreLocation: StoreOpening {
    func openStore(session: Bool) throws -> PersistentStore { try openStore(session: session, modelPath: nil) }
}

enum Diagnostics {
    static func error(_ message: String) {
        let label = Terminal.usesColor(STDERR_FILENO) ? "\u{1B}[31mcdinspect: error:\u{1B}[0m " : "cdinspect: error: "
        FileHandle.standardError.write(Data((label + message + "\n").utf8))
    }

    /// A line of the SQL debug log, as Core Data writes it to the console.
    static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func warning(_ message: String) {
        FileHandle.standardError.write(Data(("cdinspect: warning: " + message + "\n").utf8))
    }

    /// Runs `body`, reporting a failure the one way every front end does and turning it
    /// into the exit status for it.
    static func reporting(_ body: () throws -> Void) throws {
        do { try body() } catch {
            Diagnostics.error(ExitStatus.message(for: error))
            throw ExitCode(ExitStatus.code(for: error))
        }
    }
}

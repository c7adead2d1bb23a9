import ArgumentParser
import ManagedStore

/// A command of the session language. Its arguments are declared once, with
/// swift-argument-parser, so the REPL, scripts and the one-shot subcommands parse them the
/// same way and `help COMMAND` shows the same text as `cdinspect COMMAND --help`.
public protocol SessionCommand: ParsableCommand {
    func run(in session: Session) throws
    /// What it is beyond its arguments (`CommandTraits`); a session command with no group
    /// by default.
    static var traits: CommandTraits { get }
}

extension SessionCommand {
    public static var traits: CommandTraits { CommandTraits() }

    public mutating func run() throws {
        throw CommandError.usage("\(Self._commandName) needs an open store")
    }
}

/// `--format` as every command accepts it, overriding the session's format for one command.
public struct FormatOption: ParsableArguments {
    @Option(name: .long, help: "Output format: table, json, csv or line.",
            transform: { try OutputFormat(parsing: $0) })
    public var format: OutputFormat?

    @Option(name: .long, help: ArgumentHelp("Show dates in this zone: UTC (the default), local, an offset such as +02:00, or a name such as Europe/Berlin; always with its offset.",
                                            valueName: "zone"),
            transform: { try DateStyle.zone(parsing: $0) })
    public var timeZone: DateStyle.Zone?

    @Flag(name: .long, help: "Show each date's stored value beside it: seconds since 2001-01-01 UTC, what the store holds and a predicate compares with.")
    public var storedDates = false

    public init() {}

    /// `--time-zone -05:00` as `--time-zone=-05:00`: a value that starts with a dash would
    /// otherwise be read as an option, and a zone west of UTC is written that way.
    public static func joiningZoneOffsets(_ words: [String]) -> [String] {
        var joined: [String] = []
        var i = 0
        while i < words.count {
            if words[i] == "--time-zone", i + 1 < words.count, words[i + 1].hasPrefix("-"),
               words[i + 1].dropFirst().first?.isNumber == true {
                joined.append("--time-zone=" + words[i + 1])
                i += 2
            } else {
                joined.append(words[i])
                i += 1
            }
        }
        return joined
    }

    /// Results on `sink` in the format and with the dates asked for, for a command that
    /// runs outside a session (`diff`, `stores`, `profile`).
    public func results(to sink: OutputSink) -> Results {
        sink.dateStyle = dates()
        return Results(format: format ?? .table, sink: sink)
    }

    /// The dates this command asks for, over the session's.
    public func dates(over session: DateStyle = .utc) -> DateStyle {
        DateStyle(zone: timeZone ?? session.zone, showsStored: storedDates || session.showsStored)
    }
}

/// The commands a session understands, by name. Order is the order `help` lists them in.
public enum CommandTable {
    public static let commands: [any SessionCommand.Type] = [
        InfoCommand.self,
        EntitiesCommand.self,
        SchemaCommand.self,
        FetchCommand.self,
        CountCommand.self,
        ExplainCommand.self,
        GetCommand.self,
        InsertCommand.self,
        UpdateCommand.self,
        DeleteCommand.self,
        ValidateCommand.self,
        SaveCommand.self,
        RollbackCommand.self,
        ResetCommand.self,
        RefreshCommand.self,
        UndoCommand.self,
        RedoCommand.self,
        ChangesCommand.self,
        RegisteredCommand.self,
        ContextCommand.self,
        PinCommand.self,
        UnpinCommand.self,
        TokenCommand.self,
        GenerationsCommand.self,
        DiffCommand.self,
        BatchUpdateCommand.self,
        BatchDeleteCommand.self,
        MergeCommand.self,
        HistoryCommand.self,
        WatchCommand.self,
        CloudKitCommand.self,
        DoctorCommand.self,
        SnapshotCommand.self,
        SnapshotsCommand.self,
        RestoreCommand.self,
        ExportCommand.self,
        RecoverCommand.self,
        ImportCommand.self,
        SQLCommand.self,
        ModelCommand.self,
        MigrateCommand.self,
        BrowseCommand.self,
    ]

    /// The commands of an overview group, in the table's order.
    public static func commands(in group: OverviewGroup) -> [any SessionCommand.Type] {
        commands.filter { $0.traits.group == group }
    }

    public static func command(named name: String) -> (any SessionCommand.Type)? {
        commands.first { $0._commandName == name }
    }

    /// Parses one command's words (the command name first), turning swift-argument-parser's
    /// errors into usage errors with its message.
    public static func parse(_ words: [String]) throws -> any SessionCommand {
        guard let name = words.first else { throw CommandError.usage("empty command") }
        guard let type = command(named: name) else {
            let hint = Spelling.nearest(name, in: commands.map { $0._commandName }).map { "did you mean '\($0)'?" } ?? "try 'help'"
            throw CommandError.usage("unknown command '\(name)' (\(hint))")
        }
        let subcommands = type.configuration.subcommands.map { $0._commandName }
        if let word = words.dropFirst().first, !subcommands.isEmpty, !word.hasPrefix("-"), word != "help", !subcommands.contains(word) {
            let hint = Spelling.nearest(word, in: subcommands).map { "; did you mean '\($0)'?" } ?? ""
            throw CommandError.usage("unknown \(name) command '\(word)' (\(name) commands: \(subcommands.joined(separator: ", "))\(hint))")
        }
        do {
            // As a root, so that commands with subcommands (`context new …`) parse too.
            guard let command = try type.parseAsRoot(FormatOption.joiningZoneOffsets(Array(words.dropFirst()))) as? any SessionCommand else {
                // swift-argument-parser answers `context new --help` and `context help new`
                // with its own help command: show the help of the subcommand named.
                throw HelpRequest(text: helpText(type, arguments: Array(words.dropFirst())))
            }
            return command
        } catch let help as HelpRequest {
            throw help
        } catch {
            if type.exitCode(for: error) == .success {
                throw HelpRequest(text: type.fullMessage(for: error, columns: 100))
            }
            throw CommandError.usage(type.message(for: error))
        }
    }
}

extension CommandTable {
    /// The help of the deepest subcommand the arguments name (`context new --help`).
    static func helpText(_ type: any SessionCommand.Type, arguments: [String]) -> String {
        var current: ParsableCommand.Type = type
        for word in arguments where word != "help" {
            guard let sub = current.configuration.subcommands.first(where: { $0._commandName == word }) else { break }
            current = sub
        }
        return type.helpMessage(for: current, columns: 100)
    }
}

/// `COMMAND --help` inside a session: not an error, just text to print.
public struct HelpRequest: Error {
    public let text: String
}

import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// `cdinspect COMMAND STORE …`: the session command of the same name, run once. The
/// command's own arguments are reused as they are, so its help and parsing are the session's.
struct OneShot<Command: SessionCommand, Options: StoreOpening>: ParsableCommand {
    /// Named a subcommand of `cdinspect` even when parsed alone (`CDInspect.parseAlone`):
    /// the parser then skips its check for `--generate-completion-script`, an option of the
    /// root only, which parses two commands of its own on every run. Help and errors are
    /// worded from the whole tree, where the root names the program.
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Command._commandName,
                             _superCommandName: "cdinspect",
                             abstract: Command.configuration.abstract,
                             discussion: Command.configuration.discussion)
    }

    @OptionGroup var options: Options
    @OptionGroup var command: Command

    func run() throws {
        Interrupts.install()
        try Diagnostics.reporting {
            let session = Session(store: try options.openStore(session: false, onlyReads: Command.traits.onlyReads), output: Terminal.standardOutput(),
                                  warn: Diagnostics.warning, runsOneCommand: true)
            defer { Teardown.closeAndKeep(session) }
            try session.run(command)
        }
    }
}

enum OneShotCommands {
    /// The session commands that also run as subcommands: those whose declaration names an
    /// overview group, in the order the overview lists them.
    static let names = OverviewGroup.allCases.flatMap { CommandTable.commands(in: $0).map { $0._commandName } }

    /// The subcommands of the executable alone, which no session runs, with their groups.
    static let executableOnly: [(command: ParsableCommand.Type, group: OverviewGroup)] = [
        (DiffSubcommand.self, .beforeAndAfter), (CreateSubcommand.self, .beforeAndAfter), (PullSubcommand.self, .beforeAndAfter), (StoresSubcommand.self, .find), (MCPSubcommand.self, .serve),
        (BrowseSubcommand.self, .serve), (ProfileSubcommand.self, .health),
    ]

    /// Each as `OneShot<Command>`, made by `oneShot`: a list of `OneShot<…>` types written
    /// out would be made at start by looking each generic type up by its mangled name, which
    /// checks its requirements against every protocol conformance in the binary, on every run.
    static var all: [ParsableCommand.Type] { names.compactMap(oneShot(named:)) }

    /// The subcommand a command line names, made without the rest of the command tree.
    static func subcommand(named name: String) -> ParsableCommand.Type? {
        oneShot(named: name) ?? executableOnly.first { $0.command._commandName == name }?.command
    }

    private static func oneShot(named name: String) -> ParsableCommand.Type? {
        guard names.contains(name), let command = CommandTable.commands.first(where: { $0._commandName == name }) else {
            return nil
        }
        return oneShot(command)
    }

    private static func oneShot<Command: SessionCommand>(_: Command.Type) -> ParsableCommand.Type {
        // A command's own --model (doctor's next model version) is not the one to read the store with.
        Command.traits.ownsModelOption ? OneShot<Command, StoreLocation>.self : OneShot<Command, StoreOptions>.self
    }
}

import ArgumentParser
import Foundation
import Inspector
import ManagedStore

/// `cdinspect COMMAND STORE …`: the session command of the same name, run once. The
/// command's own arguments are reused as they are, so its help and parsing are the session's.
struct OneShot<Command: SessionCommand>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Command._commandName,
                             abstract: Command.configuration.abstract,
                             discussion: Command.configuration.discussion)
    }

    @OptionGroup var options: StoreOptions
    @OptionGroup var command: Command

    func run() throws {
        Interrupts.install()
        try Diagnostics.reporting {
            let session = Session(store: try options.openStore(), output: Terminal.standardOutput(),
                                  warn: Diagnostics.warning, runsOneCommand: true)
            try session.run(command)
        }
    }
}

enum OneShotCommands {
    /// The session commands that also run as subcommands. Listed as the commands
    /// themselves: a list of `OneShot<…>` types is made at start by looking each generic
    /// type up by its mangled name, which checks its requirements against every protocol
    /// conformance in the binary, on every run; `oneShot` makes one without that.
    static let commands: [SessionCommand.Type] = [
        InfoCommand.self,
        EntitiesCommand.self,
        SchemaCommand.self,
        FetchCommand.self,
        CountCommand.self,
        ExplainCommand.self,
        BatchUpdateCommand.self,
        BatchDeleteCommand.self,
        HistoryCommand.self,
        WatchCommand.self,
        CloudKitCommand.self,
        SQLCommand.self,
        ModelCommand.self,
    ]

    static var all: [ParsableCommand.Type] { commands.map { oneShot($0) } }

    static var names: Set<String> { Set(commands.map { $0._commandName }) }

    /// The subcommand a command line names, made without the rest of the command tree.
    static func subcommand(named name: String) -> ParsableCommand.Type? {
        if let command = commands.first(where: { $0._commandName == name }) { return oneShot(command) }
        return [StoresSubcommand.self, MCPSubcommand.self].first { $0._commandName == name }
    }

    private static func oneShot<Command: SessionCommand>(_: Command.Type) -> ParsableCommand.Type {
        OneShot<Command>.self
    }
}

enum Terminal {
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    static func standardOutput() -> OutputSink {
        var width: Int?
        if isatty(STDOUT_FILENO) == 1 {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { width = Int(size.ws_col) }
        }
        let sink = OutputSink(handle: FileHandle.standardOutput, terminalWidth: width)
        sink.usesColor = usesColor(STDOUT_FILENO)
        return sink
    }

    /// Colour only on a terminal that can show it, and never when `NO_COLOR` is set to
    /// anything but the empty string (no-color.org).
    static func usesColor(_ descriptor: Int32) -> Bool {
        if let noColor = ProcessEnvironment.value("NO_COLOR"), !noColor.isEmpty { return false }
        return isatty(descriptor) == 1 && ProcessEnvironment.value("TERM") != "dumb"
    }
}

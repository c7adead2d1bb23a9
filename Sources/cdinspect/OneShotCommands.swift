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
    static let all: [ParsableCommand.Type] = [
        OneShot<InfoCommand>.self,
        OneShot<EntitiesCommand>.self,
        OneShot<SchemaCommand>.self,
        OneShot<FetchCommand>.self,
        OneShot<CountCommand>.self,
        OneShot<ExplainCommand>.self,
        OneShot<BatchUpdateCommand>.self,
        OneShot<BatchDeleteCommand>.self,
        OneShot<HistoryCommand>.self,
        OneShot<WatchCommand>.self,
        OneShot<CloudKitCommand>.self,
        OneShot<SQLCommand>.self,
        OneShot<ModelCommand>.self,
    ]

    static var names: Set<String> { Set(all.map { $0._commandName }) }
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
        let environment = ProcessInfo.processInfo.environment
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return isatty(descriptor) == 1 && environment["TERM"] != "dumb"
    }
}

import Dispatch
import Foundation
import Inspector
import ManagedStore

/// Ctrl-C (SIGINT) for every front end. The signal is taken on a queue of its own rather
/// than in a signal handler, so it can stop the running command through the core
/// (`Cancellation`), which takes locks. With no command running, `idle` decides: the REPL
/// clears its line, a script or subcommand exits with status 130.
enum Interrupts {
    /// Set only by `install`, which every front end calls once from the main thread before
    /// any command runs; the source itself delivers on its own queue.
    nonisolated(unsafe) private static var source: DispatchSourceSignal?

    static func install(whenIdle idle: @escaping () -> Void = { exit(ExitStatus.interrupted) }) {
        source?.cancel()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "cdinspect.interrupts"))
        source.setEventHandler { if !Cancellation.request() { idle() } }
        source.resume()
        Interrupts.source = source
    }
}

import Foundation
import Inspector
import ManagedStore

/// Ctrl-C (SIGINT) for every front end. The signal handler only writes a byte to a pipe; a
/// thread of its own reads it and stops the running command through the core
/// (`Cancellation`), which takes locks no signal handler may take. With no command running,
/// `idle` decides: the REPL clears its line, a script or subcommand exits with status 130.
///
/// The handler is a plain `sigaction` one, set before the first prompt, because libedit
/// saves the SIGINT handler when it starts reading a line and puts back what it saved when
/// it stops. A handler installed later, or asynchronously (as a Dispatch signal source
/// installs its own on Linux), can be saved as "ignore" and then overwritten with it.
enum Interrupts {
    private static let lock = NSLock()
    /// Read and written only while holding `lock`.
    nonisolated(unsafe) private static var idle: (@Sendable () -> Void)?
    /// The pipe's write end, for the handler: set once, before the handler is installed.
    nonisolated(unsafe) private static var signalWriter: Int32 = -1

    static func install(whenIdle idle: @escaping @Sendable () -> Void = { exit(ExitStatus.interrupted) }) {
        lock.withLock { Interrupts.idle = idle }
        guard signalWriter < 0 else { return }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let reader = ends[0]
        signalWriter = ends[1]
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                if !Cancellation.request() { Interrupts.lock.withLock { Interrupts.idle }?() }
            }
        }
        thread.name = "cdinspect.interrupts"
        thread.start()
        // write(2) is async-signal-safe, and the descriptor is set before this handler is.
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(Interrupts.signalWriter, &byte, 1)
        }
    }
}

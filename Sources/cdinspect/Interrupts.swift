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
    /// The pipe's read end, for the reader thread: set once, before the thread starts.
    nonisolated(unsafe) private static var signalReader: Int32 = -1

    static func install(whenIdle idle: @escaping @Sendable () -> Void = { exit(ExitStatus.interrupted) }) {
        lock.withLock { Interrupts.idle = idle }
        guard signalWriter < 0 else { return }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalReader = ends[0]
        signalWriter = ends[1]
        // A plain POSIX thread, not a Foundation `Thread`: the reader needs no run loop or
        // thread dictionary, and every one-shot command starts it, so what Foundation sets
        // up for a thread would be paid on every run.
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        guard pthread_create(&thread, &attributes, { _ in Interrupts.readSignals(); return nil }, nil) == 0 else { return }
        // write(2) is async-signal-safe, and the descriptor is set before this handler is.
        signal(SIGINT) { _ in
            var byte: UInt8 = 1
            _ = write(Interrupts.signalWriter, &byte, 1)
        }
    }

    /// The reader thread's loop: one byte per Ctrl-C.
    private static func readSignals() {
        var byte: UInt8 = 0
        while true {
            let count = read(signalReader, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return }
            if !Cancellation.request() { lock.withLock { idle }?() }
        }
    }
}

import Foundation
import GRDB

/// Ctrl-C for the core: a front end marks each command's run, and a request made while one
/// runs stops it. The statement running is interrupted (`sqlite3_interrupt`, which SQLite
/// documents as safe from another thread); a statement about to start sees the flag and
/// throws before it runs. An interrupted write rolls its whole transaction back, so the
/// store is left exactly as it was before the command.
///
/// Work that runs beside other work on threads of its own (an MCP server's tool calls) is
/// stopped one piece at a time instead: see `CancellationScope`. The checks below see the
/// request for the whole process and the one for the calling thread's scope alike.
public enum Cancellation {
    private static let lock = NSLock()
    // The three below are read and written only while holding `lock`.
    nonisolated(unsafe) private static var connections: [WeakConnection] = []
    /// Commands running, nested: `read FILE` is one command made of others, and a request
    /// made between two of them stops the rest.
    nonisolated(unsafe) private static var depth = 0
    nonisolated(unsafe) private static var requested = false

    struct WeakConnection {
        weak var queue: DatabaseQueue?
    }

    /// Every connection the store opens, so a request can reach the one that is busy; one
    /// opened inside a scope is also the scope's to interrupt.
    static func register(_ queue: DatabaseQueue) {
        lock.withLock {
            connections.removeAll { $0.queue == nil }
            connections.append(WeakConnection(queue: queue))
        }
        CancellationScope.current?.watch(queue)
    }

    /// Marks the start of a command; a request left over from an earlier one is dropped.
    public static func commandStarted() {
        lock.withLock {
            if depth == 0 { requested = false }
            depth += 1
        }
    }

    public static func commandEnded() {
        lock.withLock {
            depth = max(0, depth - 1)
            if depth == 0 { requested = false }
        }
    }

    /// A connection about to close: from now on no request reaches it. A request interrupts
    /// while it holds the lock this takes, so none is still interrupting the connection as it
    /// closes (GRDB's interrupt reads the handle its close clears; ThreadSanitizer saw the two
    /// race when Ctrl-C came as a command ended).
    static func unregister(_ queue: DatabaseQueue) {
        lock.withLock { connections.removeAll { $0.queue == nil || $0.queue === queue } }
    }

    /// Interrupts those of `queues` not yet closed, holding the lock `unregister` takes: a
    /// scope's request (a tool call's time limit, a client's cancellation) reaches no
    /// connection as it closes, as the process's request does not.
    static func interrupt(_ queues: [DatabaseQueue]) {
        lock.withLock {
            for queue in queues where connections.contains(where: { $0.queue === queue }) { queue.interrupt() }
        }
    }

    /// Stops the running command; false, and nothing done, when no command runs.
    /// (`sqlite3_interrupt` only sets a flag: it is called with the lock held.)
    @discardableResult
    public static func request() -> Bool {
        lock.withLock {
            guard depth > 0 else { return false }
            requested = true
            for connection in connections { connection.queue?.interrupt() }
            return true
        }
    }

    public static var isRequested: Bool {
        lock.withLock { requested } || CancellationScope.current?.isCancelled == true
    }

    /// Called before each statement the core runs, and by front ends between commands.
    public static func check() throws {
        if isRequested { throw StoreError.interrupted }
    }

    /// Whether an error is the end of an interrupted command, however it surfaced.
    public static func isInterruption(_ error: Error) -> Bool {
        if case StoreError.interrupted = error { return true }
        return (error as? DatabaseError)?.resultCode == .SQLITE_INTERRUPT
    }
}

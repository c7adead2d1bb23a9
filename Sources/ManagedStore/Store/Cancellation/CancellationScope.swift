import Foundation
import GRDB

/// One piece of work that can be stopped without stopping the others running beside it: a
/// tool call of the MCP server, which a client may cancel (`notifications/cancelled`) or
/// which may outrun its time limit while other calls go on. The work runs inside `run` on a
/// thread of its own; every `Cancellation.check()` on that thread sees the scope's request,
/// and the connections it reads through are interrupted when the request is made.
public final class CancellationScope: @unchecked Sendable {
    public enum Reason: Sendable, Equatable {
        case cancelled
        case timeLimit(seconds: Double)
    }

    private let lock = NSLock()
    // Read and written only while holding `lock`.
    private var stoppedBy: Reason?
    private var queues: [Cancellation.WeakConnection] = []

    public init() {}

    /// Why the work was stopped, or nil while it may go on.
    public var reason: Reason? { lock.withLock { stoppedBy } }
    public var isCancelled: Bool { reason != nil }

    /// Stops the work: the statement it runs is interrupted, and the next check throws. The
    /// first reason given is the one kept.
    public func cancel(_ reason: Reason = .cancelled) {
        let interrupt: [DatabaseQueue] = lock.withLock {
            if stoppedBy == nil { stoppedBy = reason }
            return queues.compactMap(\.queue)
        }
        Cancellation.interrupt(interrupt)
    }

    /// A connection the work reads through, opened before the scope (a store kept open
    /// between calls); connections opened inside `run` are watched without asking. Only a
    /// connection `StoreConnection.open` made (and so registered) is interrupted: the
    /// interrupt goes through `Cancellation.interrupt`, which skips what has been closed.
    public func watch(_ queue: DatabaseQueue) {
        let interruptNow: Bool = lock.withLock {
            queues.removeAll { $0.queue == nil }
            queues.append(.init(queue: queue))
            return stoppedBy != nil
        }
        if interruptNow { Cancellation.interrupt([queue]) }
    }

    /// Runs `body` with this scope as the calling thread's.
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer {
            pthread_setspecific(Self.key, previous)
            // Over: a late request (a timer, a cancellation racing the answer) must not
            // interrupt a connection that other work reads through next.
            lock.withLock { queues.removeAll() }
        }
        return try body()
    }

    /// Runs `body` as part of the work of a scope already running on another thread (a
    /// phase that work hands to a thread of its own): a request stops it too. The connections
    /// watched stay the scope's when it ends.
    func share<T>(_ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.key, previous) }
        return try body()
    }

    /// The scope of the calling thread, if it runs inside one.
    public static var current: CancellationScope? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<CancellationScope>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}

import Foundation
import Inspector
import ManagedStore

/// Live updates as Server-Sent Events (`/-/events`): `watch`, run while at least one page
/// listens, follows the store as other processes commit (the WAL index's change counter, no
/// read transaction held between looks, so the app's checkpoints are never held back), and
/// each change it reports (`watch --format json`'s line) goes to every listening page as an
/// `event: change`. A page that falls behind gets `event: resync` instead of a queue that
/// grows; a comment every 15 seconds keeps a quiet connection open and finds clients gone.
public final class LiveFeed: @unchecked Sendable {
    public static let maximumListeners = 32
    static let queueLimit = 256
    static let heartbeat: TimeInterval = 15

    private let path: String
    private let options: PersistentStore.Options
    private let condition = NSCondition()
    // Read and written only while holding `condition`.
    private var listeners: [Int: Listener] = [:]
    private var nextID = 0
    private var follower: CancellationScope?
    /// Follower threads not yet ended: a cancelled follower closes its store on its own
    /// thread, after the last page has gone.
    private var runningFollowers = 0
    /// The follower has read the store as it is: what commits from now on is reported.
    private var ready = false
    private var stopped = false

    private struct Listener {
        var events: [String] = []
        var overflowed = false
    }

    init(path: String, options: PersistentStore.Options) {
        self.path = path
        var reading = options
        reading.readonly = true
        self.options = reading
    }

    /// Listeners now (for the tests and the limit).
    public var listenerCount: Int { condition.withLock { listeners.count } }

    /// Follower threads running now: one while pages listen, none once the last has gone and
    /// its follower has closed its store (for the tests).
    public var followersRunning: Int { condition.withLock { runningFollowers } }

    /// Stops following, and waits (up to `followerEndLimit`) for the follower to close its
    /// store: a web view that stopped leaves no connection to the store behind it.
    func stop() {
        condition.withLock {
            stopped = true
            follower?.cancel()
            follower = nil
            condition.broadcast()
        }
        settle()
    }

    static let followerEndLimit: TimeInterval = 5

    /// Waits until no follower thread runs (every page has gone and each cancelled follower
    /// has closed its store), or `followerEndLimit` passes; whether none runs.
    @discardableResult
    public func settle() -> Bool {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: Self.followerEndLimit)
            while runningFollowers > 0, condition.wait(until: deadline) {}
            return runningFollowers == 0
        }
    }

    /// A listening page's response: the events as they come, until it goes.
    func subscribe(scope: CancellationScope) -> WebResponse {
        let id: Int? = condition.withLock {
            guard !stopped, listeners.count < Self.maximumListeners else { return nil }
            nextID += 1
            listeners[nextID] = Listener()
            if follower == nil { startFollower() }
            return nextID
        }
        guard let id else { return Refusals.page(503, "Too many pages are following the store; close some.") }
        return WebResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8")], body: .stream { [self] writer in
            defer { leave(id) }
            // Open once the follower has its starting point: a change made after the page
            // saw the stream open is never taken for the store as it was.
            condition.withLock {
                let deadline = Date(timeIntervalSinceNow: 10)
                while !ready, !stopped, condition.wait(until: deadline) {}
            }
            try writer.write(Array("retry: 3000\n: following the store\n\n".utf8))
            var quiet: TimeInterval = 0
            while true {
                // Short waits: a page that went away (its connection closed, the scope cancelled)
                // leaves at once, not at the next heartbeat.
                let (events, overflowed, done) = next(id, within: 0.25)
                if done || scope.isCancelled { return }
                if overflowed { try writer.write(Array("event: resync\ndata: {}\n\n".utf8)) }
                if events.isEmpty && !overflowed {
                    quiet += 0.25
                    if quiet >= Self.heartbeat {
                        quiet = 0
                        try writer.write(Array(": still following\n\n".utf8))
                    }
                    continue
                }
                quiet = 0
                for event in events { try writer.write(Array("event: change\ndata: \(event)\n\n".utf8)) }
            }
        })
    }

    /// The events for listener `id` (waiting up to `seconds` for one), whether some were
    /// dropped, and whether the feed stopped.
    private func next(_ id: Int, within seconds: TimeInterval) -> ([String], Bool, Bool) {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !stopped, let listener = listeners[id], listener.events.isEmpty, !listener.overflowed {
            if !condition.wait(until: deadline) { break }
        }
        guard !stopped, var listener = listeners[id] else { return ([], false, true) }
        let taken = (listener.events, listener.overflowed)
        listener.events = []
        listener.overflowed = false
        listeners[id] = listener
        return (taken.0, taken.1, false)
    }

    private func leave(_ id: Int) {
        condition.withLock {
            listeners[id] = nil
            if listeners.isEmpty {
                follower?.cancel()
                follower = nil
                ready = false
            }
        }
    }

    /// One event to every listener; a full queue is marked to resync instead.
    private func broadcast(_ line: String) {
        condition.withLock {
            for (id, var listener) in listeners {
                if listener.events.count >= Self.queueLimit { listener.overflowed = true; listener.events = [] } else { listener.events.append(line) }
                listeners[id] = listener
            }
            condition.broadcast()
        }
    }

    /// `watch --format json` on a store of its own, in a scope the last listener cancels.
    /// The lock is the caller's.
    private func startFollower() {
        let scope = CancellationScope()
        follower = scope
        let path = self.path, options = self.options
        runningFollowers += 1
        let thread = Thread { [self] in
            defer {
                condition.withLock {
                    runningFollowers -= 1
                    condition.broadcast()
                }
            }
            scope.run {
                var pending: [UInt8] = []
                let sink = OutputSink(forwarding: { bytes in
                    pending += bytes
                    while let newline = pending.firstIndex(of: 10) {
                        let line = String(decoding: pending[..<newline], as: UTF8.self)
                        pending.removeSubrange(...newline)
                        if line.hasPrefix("{") { self.broadcast(line) }
                    }
                    return true
                })
                guard let store = try? PersistentStore(path: path, options: options) else { return }
                defer { store.close() }
                scope.watch(store.reader)
                // watch says when it follows (its note): from then on every commit is reported.
                let session = Session(store: store, format: .json, output: sink, warn: { _ in }, note: { _ in
                    self.condition.withLock {
                        if self.follower === scope { self.ready = true }
                        self.condition.broadcast()
                    }
                }, runsOneCommand: true)
                // The session's own connections (watch's coordinator) close with it, here on
                // the follower's thread, not whenever the last reference to it goes.
                defer { session.close() }
                _ = try? session.run(WatchCommand.parse(["--format", "json"]))
            }
        }
        thread.start()
    }
}

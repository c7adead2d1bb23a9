import Foundation

/// `cloudkit events --follow`: each sync event as it starts and as it ends, while the app
/// runs. Like `StoreWatcher` it holds nothing of the store between looks (one short read
/// per look, no read transaction left open, so the app's checkpoints go on), and sleeps
/// until the store's change signal moves.
public final class CloudKitEventFollower {
    public enum Change: Sendable, Equatable {
        case started(CloudKitMirroring.Event)
        case ended(CloudKitMirroring.Event)
    }

    public let mirroring: CloudKitMirroring
    /// How long to sleep between looks at the change signal.
    public var interval: TimeInterval = 0.05

    public init(_ mirroring: CloudKitMirroring) { self.mirroring = mirroring }

    /// Reports changes until `body` returns false, the deadline passes, or Ctrl-C. Events
    /// that were there when it began are not reported, except when one of them ends.
    /// `ready` is called once the events already there are known: what changes after it is
    /// reported.
    public func run(until deadline: Date?, ready: () -> Void = {}, _ body: (Change) throws -> Bool) throws {
        let store = mirroring.store
        let identity = StoreFile.identity(store.path)
        var signal = ChangeSignal.read(store.file)
        var newest: Int64 = 0
        var running: [Int64] = []
        try store.read { db in
            let events = try mirroring.events(db)
            newest = events.map(\.number).max() ?? 0
            running = events.filter { $0.ended == nil }.map(\.number)
        }
        ready()
        while true {
            try Cancellation.check()
            if let deadline, Date() >= deadline { return }
            try StoreFile.checkSame(store.path, identity)
            let next = ChangeSignal.read(store.file)
            if next != signal {
                signal = next
                var changes: [Change] = []
                try store.read { db in
                    for event in try mirroring.events(numbered: running, db) where event.ended != nil {
                        changes.append(.ended(event))
                        running.removeAll { $0 == event.number }
                    }
                    for event in try mirroring.events(after: newest, db) {
                        newest = max(newest, event.number)
                        changes.append(.started(event))
                        if event.ended != nil { changes.append(.ended(event)) } else { running.append(event.number) }
                    }
                }
                for change in changes { guard try body(change) else { return } }
            }
            let pause = deadline.map { min(interval, max(0, $0.timeIntervalSinceNow)) } ?? interval
            usleep(useconds_t(pause * 1_000_000))
        }
    }
}

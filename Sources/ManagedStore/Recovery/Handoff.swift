import Foundation

/// Runs a producer on a thread of its own and hands what it yields to the caller's thread, in
/// order, in batches, with at most a few batches waiting: `recover` reads and carves on one
/// core while the caller writes out what was found on another (on a million-row store the
/// writing is a quarter of the work), and memory stays bounded by the batches, not the results.
///
/// The producer runs in the caller's cancellation scope, so a request stops it. A producer's
/// error reaches the caller after the items yielded before it; a consumer's error stops the
/// producer at its next yield, and is thrown once the producer has ended, so that nothing it
/// reads through is closed under it.
final class Handoff<Item: Sendable>: @unchecked Sendable {
    static var batchSize: Int { 256 }
    static var batchesWaiting: Int { 8 }

    /// The producer, run only on the new thread.
    private struct Work: @unchecked Sendable {
        let run: (_ yield: (Item) throws -> Void) throws -> Void
    }

    /// What a producer's yield throws once the consumer has stopped.
    private struct ConsumerStopped: Error {}

    private let condition = NSCondition()
    // The four below are read and written only while holding `condition`.
    private var batches: [[Item]] = []
    private var produced = false
    private var failure: Error?
    private var consumerStopped = false

    private init() {}

    static func run(_ produce: @escaping (_ yield: (Item) throws -> Void) throws -> Void, consume: (Item) throws -> Void) throws {
        let handoff = Handoff()
        let work = Work(run: produce)
        let scope = CancellationScope.current
        let thread = Thread { handoff.produce(work, scope: scope) }
        thread.stackSize = 8 << 20
        thread.start()
        try handoff.consume(consume)
    }

    private func produce(_ work: Work, scope: CancellationScope?) {
        var pending: [Item] = []
        pending.reserveCapacity(Self.batchSize)
        var error: Error?
        do {
            let body = {
                try work.run { item in
                    pending.append(item)
                    if pending.count == Self.batchSize {
                        try self.push(pending)
                        pending.removeAll(keepingCapacity: true)
                    }
                }
                try self.push(pending)
            }
            if let scope { try scope.share(body) } else { try body() }
        } catch is ConsumerStopped {
        } catch let thrown {
            error = thrown
        }
        condition.withLock {
            failure = error
            produced = true
            condition.broadcast()
        }
    }

    private func push(_ batch: [Item]) throws {
        guard !batch.isEmpty else { return }
        try condition.withLock {
            while batches.count >= Self.batchesWaiting && !consumerStopped { condition.wait() }
            guard !consumerStopped else { throw ConsumerStopped() }
            batches.append(batch)
            condition.broadcast()
        }
    }

    private func consume(_ body: (Item) throws -> Void) throws {
        while true {
            let next: [Item]? = condition.withLock {
                while batches.isEmpty && !produced { condition.wait() }
                guard !batches.isEmpty else { return nil }
                condition.broadcast()
                return batches.removeFirst()
            }
            guard let next else { break }
            do {
                for item in next { try body(item) }
            } catch {
                condition.withLock {
                    consumerStopped = true
                    condition.broadcast()
                    while !produced { condition.wait() }
                }
                throw error
            }
        }
        if let failure = condition.withLock({ failure }) { throw failure }
    }
}

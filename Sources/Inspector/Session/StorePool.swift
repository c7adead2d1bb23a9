import Foundation
import ManagedStore

/// Open copies of the one store, so that requests run side by side (the MCP server's tool
/// calls, the web view's pages): a connection serves one request at a time, and a slow one
/// must not keep the others waiting. A copy is opened when requests overlap, up to `limit`;
/// a request past that waits for one to come back.
public final class StorePool: @unchecked Sendable {
    public static let limit = 4
    private let condition = NSCondition()
    // Read and written only while holding `condition`.
    private var idle: [PersistentStore]
    private var opened = 1
    private let path: String
    private let options: PersistentStore.Options

    public init(_ first: PersistentStore) {
        idle = [first]
        path = first.path
        options = first.options
    }

    /// A store no other call uses, or nil when the call was stopped while it waited.
    public func borrow(for scope: CancellationScope) throws -> PersistentStore? {
        condition.lock()
        while idle.isEmpty && opened >= Self.limit {
            guard !scope.isCancelled else {
                condition.unlock()
                return nil
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
        if let store = idle.popLast() {
            condition.unlock()
            return store
        }
        opened += 1
        condition.unlock()
        do {
            return try PersistentStore(path: path, options: options)
        } catch {
            condition.withLock {
                opened -= 1
                condition.signal()
            }
            throw error
        }
    }

    public func giveBack(_ store: PersistentStore) {
        condition.withLock {
            idle.append(store)
            condition.signal()
        }
    }
}

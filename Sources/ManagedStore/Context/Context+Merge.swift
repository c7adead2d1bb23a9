import Foundation

extension Context {
    /// `mergeChanges(fromRemoteContextSave:into:)` for one context: objects changed behind
    /// it (by a batch request or another process) are brought up to date. A pinned context
    /// first moves to the newest generation, as merging does (seed 004), so what it reads
    /// is what was merged.
    ///
    /// Updated objects that are faults forget their row snapshot and read the row when next
    /// used; realized ones are refreshed from the store with their own changes kept on top.
    /// Deleted objects leave the context.
    public func mergeChanges(updated: [ObjectID], deleted: [ObjectID]) throws {
        advanceGeneration()
        for id in updated {
            guard let object = registeredObject(for: id) else { continue }
            if object.isFault {
                object.snapshot = nil
            } else if !object.isInserted {
                try refresh(object, mergeChanges: true)
            }
        }
        forgetDeleted(deleted)
    }

    /// Objects deleted from the store by someone else leave the context.
    func forgetDeleted(_ ids: [ObjectID]) {
        for id in ids {
            guard let object = registeredObject(for: id) else { continue }
            object.isInaccessible = true
            object.isFault = false
            unregister(object)
        }
    }
}

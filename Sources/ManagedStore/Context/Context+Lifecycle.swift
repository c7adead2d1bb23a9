import Foundation

/// Discarding and refreshing: rollback, reset and refresh, as the Programming Guide
/// describes them (seed 003).
extension Context {
    /// Discards every pending change: inserted objects leave the context, updated and
    /// deleted ones return to their last-read values. The undo stack is emptied.
    public func rollback() {
        for object in changed.values {
            if object.isInserted {
                unregister(object)
                continue
            }
            object.isDeleted = false
            object.changedKeys = []
            if let snapshot = object.snapshot {
                object.values = snapshot.values
            } else {
                object.values = [:]
                object.isFault = true
            }
        }
        changed.removeAll()
        undoStack.removeAll()
        redoStack.removeAll()
    }

    /// Forgets every registered object and pending change, as if the context were new. A
    /// pinned context is pinned again at the newest generation.
    public func reset() {
        advanceGeneration()
        for object in liveObjects().values where object.isFault { object.snapshot = nil }
        registry.removeAll()
        changed.removeAll()
        retained.removeAll()
        undoStack.removeAll()
        redoStack.removeAll()
    }

    /// `refreshObject(_:mergeChanges:)`. Without merging, the object's pending changes are
    /// discarded and it turns back into a fault that reads its row again when next used.
    /// With merging, the row is read now and the object's own changes are kept on top.
    /// Inserted objects have no row to refresh from and are left as they are.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws {
        guard !object.isInserted else { return }
        guard mergeChanges, !object.isInaccessible else {
            object.changedKeys = []
            object.isDeleted = false
            object.values = [:]
            object.snapshot = nil
            object.isFault = true
            object.isInaccessible = false
            noteChange(object)
            return
        }
        guard let row = try readRow(object.objectID) else {
            if shouldDeleteInaccessibleFaults {
                object.isInaccessible = true
                object.isFault = false
                object.values = [:]
                return
            }
            throw ContextError.inaccessibleFault(object.objectID.uri)
        }
        refresh(object, with: row)
    }

    /// Merges a newer row into an object: unchanged properties take the row's values,
    /// changed ones keep the context's. To-many relationships not changed turn back into
    /// faults. A fault just takes the row as its snapshot.
    func refresh(_ object: ManagedObject, with row: RowSnapshot) {
        object.snapshot = row
        guard !object.isFault else { return }
        var values = row.values
        for key in object.changedKeys { values[key] = object.values[key] }
        object.values = values
        object.changedKeys = object.changedKeys.filter { row.values[$0] != values[$0] || object.entity.relationship($0)?.relationship.isToMany == true }
        noteChange(object)
    }

    /// `refreshAllObjects()`: unchanged objects become faults that read their rows again;
    /// changed objects are refreshed from the store with their changes kept.
    public func refreshAll() throws {
        for object in liveObjects().values {
            if object.hasChanges {
                if !object.isInserted && !object.isDeleted { try refresh(object, mergeChanges: true) }
            } else {
                try refresh(object, mergeChanges: false)
            }
        }
    }
}

import Foundation
import GRDB

/// What a save did, for the command to report.
public struct SaveResult: Sendable {
    public var inserted: [ObjectID] = []
    public var updated: [ObjectID] = []
    public var deleted: [ObjectID] = []
    /// Conflicts the merge policy resolved (the error policy throws them instead).
    public var conflicts: [MergeConflict] = []
    /// The parent context, for a child's save.
    public var parent: String?
}

extension Context {
    /// Saves the pending changes: a root context to the store in one transaction, a child
    /// into its parent only. A save that fails leaves the store as it was and every change
    /// still pending.
    @discardableResult
    public func save() throws -> SaveResult {
        guard hasChanges else { return SaveResult(parent: parent?.name) }
        let failures = try validationFailures()
        guard failures.isEmpty else { throw ContextError.validation(failures) }
        if let parent { return try save(into: parent) }
        return try saveToStore()
    }

    /// How one changed object ends up after a root save.
    private struct Outcome {
        var object: ManagedObject
        /// Values the object holds after the save (nil: it is gone from the context).
        var values: [String: ObjectValue]?
        var version: Int64
        /// False when the merge policy kept the store's row and nothing was written.
        var written = true
    }

    private func saveToStore() throws -> SaveResult {
        let objects = changed.values.filter(\.hasChanges).sorted(by: ManagedObject.displayOrder)
        let inserted = objects.filter(\.isInserted)
        let updated = objects.filter(\.isUpdated)
        let deleted = objects.filter { $0.isDeleted && !$0.isInserted }
        let policy = mergePolicy
        var result = SaveResult()

        // Values over Core Data's threshold go to files, settled as the transaction ends.
        let external = ExternalDataFiles(storePath: store.path, disk: coordinator.disk)
        let (outcomes, keys) = try coordinator.write(files: external) { db -> ([Outcome], [ObjectID: ObjectID]) in
            var writer = StoreWriter(db: db, mapping: mapping, external: external)
            let history = HistoryWriter(db: db, store: store, origin: historyOrigin)
            // Optimistic locking: compare each row's Z_OPT with the version the context read.
            var current: [ObjectID: RowSnapshot] = [:]
            for (entityName, group) in Dictionary(grouping: updated + deleted, by: { $0.objectID.entityName }) {
                let entity = try store.entity(entityName)
                for chunk in stride(from: 0, to: group.count, by: 500) {
                    let keys = group[chunk..<min(chunk + 500, group.count)].map(\.objectID.primaryKey)
                    current.merge(try StoreRows.read(entity, keys: keys, store: store, db: db)) { a, _ in a }
                }
            }
            var conflicts: [ObjectID: MergeConflict] = [:]
            for object in updated + deleted {
                let cached = object.snapshot?.version ?? 0
                let row = current[object.objectID]
                guard row?.version != cached else { continue }
                let storeChanged = row.map { r in
                    StoreWriter.rowKeys(object.entity).filter { r.values[$0] != object.snapshot?.values[$0] }
                } ?? []
                conflicts[object.objectID] = MergeConflict(objectID: object.objectID, cachedVersion: cached, storeVersion: row?.version,
                                                           storeChangedKeys: storeChanged, contextChangedKeys: object.changedKeys.sorted())
            }
            if policy == .error, !conflicts.isEmpty {
                throw ContextError.mergeConflicts(conflicts.values.sorted { ObjectID.displayOrder($0.objectID, $1.objectID) })
            }
            result.conflicts = conflicts.values.sorted { ObjectID.displayOrder($0.objectID, $1.objectID) }

            try writer.allocateKeys(inserted, storeUUID: store.uuid)
            var outcomes: [Outcome] = []
            for object in inserted {
                try writer.insert(object)
                try history?.insert(object.entity, writer.permanent(object.objectID).primaryKey)
                outcomes.append(Outcome(object: object, values: object.values, version: 1))
            }
            var toManyWrites: [(ManagedObject, RelationshipMapping, [ObjectID], [ObjectID])] = []
            for object in inserted {
                for r in object.entity.relationships where r.relationship.isToMany {
                    let ids = object.values[r.relationship.name]?.destinations ?? []
                    if !ids.isEmpty { toManyWrites.append((object, r, [], ids)) }
                }
            }
            for object in updated {
                let snapshot = object.snapshot?.values ?? [:]
                let rowKeys = Set(StoreWriter.rowKeys(object.entity))
                var values = object.values
                var writeKeys = object.changedKeys.filter { rowKeys.contains($0) }
                var expected = object.snapshot?.version ?? 0
                if let conflict = conflicts[object.objectID] {
                    guard let row = current[object.objectID] else {
                        // Deleted in the store: only the error policy can keep these changes.
                        outcomes.append(Outcome(object: object, values: nil, version: 0))
                        continue
                    }
                    expected = row.version
                    switch policy {
                    case .rollback:
                        outcomes.append(Outcome(object: object, values: row.values, version: row.version, written: false))
                        continue
                    case .overwrite:
                        writeKeys = rowKeys
                    case .objectTrump:
                        for key in rowKeys where !object.changedKeys.contains(key) { values[key] = row.values[key] }
                    case .storeTrump:
                        let storeChanged = Set(conflict.storeChangedKeys)
                        for key in rowKeys where !object.changedKeys.contains(key) || storeChanged.contains(key) {
                            values[key] = row.values[key]
                        }
                        writeKeys.subtract(storeChanged)
                    case .error:
                        break
                    }
                }
                guard try writer.update(object, values, keys: writeKeys.sorted(), expected: expected, version: expected + 1,
                                        stored: current[object.objectID]?.values ?? [:]) else {
                    throw ContextError.mergeConflicts([conflicts[object.objectID] ?? MergeConflict(
                        objectID: object.objectID, cachedVersion: expected, storeVersion: nil, storeChangedKeys: [],
                        contextChangedKeys: object.changedKeys.sorted())])
                }
                for r in object.entity.relationships where r.relationship.isToMany && object.changedKeys.contains(r.relationship.name) {
                    toManyWrites.append((object, r, snapshot[r.relationship.name]?.destinations ?? [],
                                         values[r.relationship.name]?.destinations ?? []))
                }
                var recorded = writeKeys.union(object.changedKeys.filter { object.entity.relationship($0)?.relationship.isToMany == true })
                // A to-one re-pointed within one entity leaves its entity-key column alone.
                for key in recorded {
                    guard case .toOne(let old?)? = snapshot[key], case .toOne(let new?)? = values[key],
                          old.entityName == new.entityName else { continue }
                    recorded.remove(key)
                    recorded.insert(UpdatedPropertyBits.sameEntity(key))
                }
                try history?.update(object.entity, object.objectID.primaryKey, keys: recorded)
                outcomes.append(Outcome(object: object, values: values, version: expected + 1))
            }
            for object in deleted {
                let row = current[object.objectID]
                if conflicts[object.objectID] != nil, policy == .rollback, let row {
                    outcomes.append(Outcome(object: object, values: row.values, version: row.version, written: false))
                    continue
                }
                if let row {
                    try history?.delete(object.entity, object.objectID.primaryKey)
                    try writer.delete(object, expected: row.version, stored: row.values)
                }
                outcomes.append(Outcome(object: object, values: nil, version: 0))
            }
            for (object, r, old, new) in toManyWrites { try writer.writeToMany(object, r, old: old, new: new) }
            try history?.finish()
            return (outcomes, writer.keys)
        }

        // The transaction committed: the context now matches the store.
        var saved: [ObjectID: RowSnapshot] = [:]
        var gone: [ObjectID] = []
        for (temporary, permanent) in keys { coordinator.recordPermanent(temporary, permanent) }
        for outcome in outcomes {
            let object = outcome.object
            let wasInserted = object.isInserted, wasDeleted = object.isDeleted
            guard let values = outcome.values else {
                unregister(object)
                object.isDeleted = true
                gone.append(object.objectID)
                if wasDeleted { result.deleted.append(object.objectID) }
                continue
            }
            if let permanent = keys[object.objectID] {
                unregister(object)
                object.objectID = permanent
                register(object)
            }
            object.isInserted = false
            object.isDeleted = false
            object.isFault = false
            object.values = values
            object.changedKeys = []
            object.snapshot = RowSnapshot(values: values, version: outcome.version)
            changed[object.objectID] = nil
            guard outcome.written else { continue }
            if wasInserted { result.inserted.append(object.objectID) } else if !wasDeleted { result.updated.append(object.objectID) }
            saved[object.objectID] = object.snapshot
        }
        if !keys.isEmpty { replaceIDs(keys) }
        changed = changed.filter { $0.value.hasChanges }
        undoStack.removeAll()
        redoStack.removeAll()
        // Seed 001: after a save to the store the context's token is nil.
        generation = nil
        for other in coordinator.mergingRoots(except: self) {
            other.mergeSave(saved: saved.filter { !result.inserted.contains($0.key) }, deleted: result.deleted + gone)
        }
        return result
    }

    /// After a save gives inserted objects permanent IDs, relationships that point at them
    /// by their temporary IDs are rewritten.
    func replaceIDs(_ keys: [ObjectID: ObjectID]) {
        func map(_ value: ObjectValue) -> ObjectValue {
            switch value {
            case .toOne(let id?): return .toOne(keys[id] ?? id)
            case .toMany(let ids): return .toMany(ids.map { keys[$0] ?? $0 })
            default: return value
            }
        }
        for object in liveObjects().values {
            object.values = object.values.mapValues(map)
            if var snapshot = object.snapshot {
                snapshot.values = snapshot.values.mapValues(map)
                object.snapshot = snapshot
            }
        }
    }

    /// A child's save: its changes become the parent's pending changes (one undo step in
    /// the parent), and the child's objects now match the parent.
    private func save(into parent: Context) throws -> SaveResult {
        var result = SaveResult(parent: parent.name)
        let objects = changed.values.filter(\.hasChanges).sorted(by: ManagedObject.displayOrder)
        try parent.changeGroup {
            for object in objects {
                if object.isInserted && object.isDeleted { continue }
                if object.isInserted {
                    let existing = parent.registeredObject(for: object.objectID)
                    let copy = existing ?? ManagedObject(objectID: object.objectID, entity: object.entity)
                    parent.touch(copy, newlyInserted: existing == nil)
                    copy.isFault = false
                    copy.isInserted = true
                    copy.values = object.values
                    parent.register(copy)
                    parent.noteChange(copy)
                    result.inserted.append(object.objectID)
                } else if object.isDeleted {
                    let copy = try parent.object(with: object.objectID)
                    try parent.fire(copy)
                    parent.touch(copy)
                    if copy.isInserted { parent.unregister(copy) } else { copy.isDeleted = true; parent.noteChange(copy) }
                    result.deleted.append(object.objectID)
                } else {
                    let copy = try parent.object(with: object.objectID)
                    for key in object.changedKeys.sorted() {
                        try parent.setPrimitive(object.values[key] ?? .null, key, of: copy)
                    }
                    result.updated.append(object.objectID)
                }
            }
        }
        for object in objects {
            if object.isDeleted { unregister(object); continue }
            object.isInserted = false
            object.changedKeys = []
            object.snapshot = RowSnapshot(values: object.values, version: object.snapshot?.version ?? 0)
        }
        changed = changed.filter { $0.value.hasChanges }
        undoStack.removeAll()
        redoStack.removeAll()
        return result
    }

    /// Another root context saved: refresh the objects it updated, keeping this context's
    /// own changes on top, and mark the ones it deleted (mergeChanges(fromContextDidSave:)).
    func mergeSave(saved: [ObjectID: RowSnapshot], deleted: [ObjectID]) {
        advanceGeneration()
        for (id, row) in saved {
            guard let object = registeredObject(for: id) else { continue }
            refresh(object, with: row)
        }
        forgetDeleted(deleted)
    }
}


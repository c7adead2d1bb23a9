/// The objects one command changed, with their state before and after, so that `undo`
/// and `redo` can put either back. A nil state means the object was not registered
/// (it was inserted by the command, or removed by it).
struct UndoGroup {
    struct Entry {
        let object: ManagedObject
        let before: ManagedObject.State?
        var after: ManagedObject.State?
    }

    var entries: [ObjectID: Entry] = [:]
    /// First-touched order, so restoring is deterministic.
    var order: [ObjectID] = []

    mutating func touch(_ object: ManagedObject, registered: Bool) {
        guard entries[object.objectID] == nil else { return }
        entries[object.objectID] = Entry(object: object, before: registered ? object.undoState : nil)
        order.append(object.objectID)
    }
}

extension Context {
    /// Runs one command's changes as a unit: if it throws, every object it touched is put
    /// back as it was; if it succeeds, the changes become one undo step.
    func changeGroup<T>(_ body: () throws -> T) throws -> T {
        precondition(openGroup == nil, "change groups do not nest")
        openGroup = UndoGroup()
        defer { openGroup = nil }
        do {
            let result = try body()
            var group = openGroup!
            for id in group.order {
                let object = group.entries[id]!.object
                group.entries[id]!.after = registry[object.objectID]?.object === object ? object.undoState : nil
            }
            if undoEnabled && !group.order.isEmpty {
                undoStack.append(group)
                redoStack.removeAll()
            }
            return result
        } catch {
            restore(openGroup!, useAfter: false)
            throw error
        }
    }

    /// Records an object's state before the open group first changes it.
    func touch(_ object: ManagedObject, newlyInserted: Bool = false) {
        openGroup?.touch(object, registered: !newlyInserted)
    }

    func restore(_ group: UndoGroup, useAfter: Bool) {
        for id in group.order.reversed() {
            let entry = group.entries[id]!
            let object = entry.object
            if let state = useAfter ? entry.after : entry.before {
                object.undoState = state
                register(object)
                noteChange(object)
            } else {
                unregister(object)
            }
        }
    }

    public func undo() throws {
        guard undoEnabled else { throw ContextError.undoOff(name) }
        guard let group = undoStack.popLast() else { throw ContextError.nothingToUndo(name) }
        restore(group, useAfter: false)
        redoStack.append(group)
    }

    public func redo() throws {
        guard undoEnabled else { throw ContextError.undoOff(name) }
        guard let group = redoStack.popLast() else { throw ContextError.nothingToRedo(name) }
        restore(group, useAfter: true)
        undoStack.append(group)
    }

    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }
}

import Foundation

/// One object registered in one context. A context holds at most one per object ID.
///
/// A fault has no values of its own yet: reading a property fires it, which takes the
/// values from the row snapshot (or reads the row). To-many relationships are faults of
/// their own and are read the first time they are used.
public final class ManagedObject {
    public internal(set) var objectID: ObjectID
    public let entity: EntityMapping
    public internal(set) var isFault = true
    var snapshot: RowSnapshot?
    /// The values the app sees once the object is realized; changes are made here.
    var values: [String: ObjectValue] = [:]
    /// Keys changed since the snapshot, the basis of `changes`, conflicts and the UPDATE.
    public internal(set) var changedKeys: Set<String> = []
    public internal(set) var isInserted = false
    public internal(set) var isDeleted = false
    /// A fault fired on a row that is gone, with `shouldDeleteInaccessibleFaults` on: Core
    /// Data marks such an object deleted without it being a pending delete.
    public internal(set) var isInaccessible = false

    init(objectID: ObjectID, entity: EntityMapping) {
        self.objectID = objectID
        self.entity = entity
    }

    public var isUpdated: Bool { !isInserted && !isDeleted && !changedKeys.isEmpty }
    public var hasChanges: Bool { isInserted || isDeleted || !changedKeys.isEmpty }

    /// The state `registered` shows.
    public var state: String {
        if isInserted { return "inserted" }
        if isDeleted || isInaccessible { return "deleted" }
        if !changedKeys.isEmpty { return "updated" }
        return isFault ? "fault" : "realized"
    }

    /// Everything about the object that undo must be able to put back.
    struct State {
        var isFault: Bool
        var snapshot: RowSnapshot?
        var values: [String: ObjectValue]
        var changedKeys: Set<String>
        var isInserted: Bool
        var isDeleted: Bool
    }

    var undoState: State {
        get { State(isFault: isFault, snapshot: snapshot, values: values, changedKeys: changedKeys,
                    isInserted: isInserted, isDeleted: isDeleted) }
        set {
            isFault = newValue.isFault
            snapshot = newValue.snapshot
            values = newValue.values
            changedKeys = newValue.changedKeys
            isInserted = newValue.isInserted
            isDeleted = newValue.isDeleted
        }
    }

    /// Values to show without firing the fault: the realized values, or the snapshot's.
    public var visibleValues: [String: ObjectValue] {
        isFault ? (snapshot?.values ?? [:]) : values
    }
}

/// A weak slot in a context's registry: objects without changes live only as long as
/// something else (the session's last result, another object) holds them.
struct WeakObject {
    weak var object: ManagedObject?
}

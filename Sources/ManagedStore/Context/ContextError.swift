/// What can go wrong in a context, phrased so the user can act: each case names the object
/// (by its URI), the entity and the property involved.
public enum ContextError: Error, CustomStringConvertible, Equatable {
    case unknownContext(String)
    case contextExists(String)
    case cannotDrop(String, why: String)
    case badObjectID(String)
    /// An object ID whose store UUID is not this store's.
    case otherStore(id: String, uuid: String)
    case noSuchObject(String)
    case wrongEntity(id: String, expected: String)
    /// Core Data's exception for a fault whose row is gone, with `shouldDeleteInaccessibleFaults` off.
    case inaccessibleFault(String)
    case objectDeleted(String)
    case badValue(entity: String, key: String, why: String)
    case readOnlyProperty(entity: String, key: String, why: String)
    case validation([ValidationFailure])
    /// An object checked on request (`validate`) fails what a save would check.
    case invalid([ValidationFailure])
    case deleteDenied(object: String, relationship: String, destinations: Int)
    case mergeConflicts([MergeConflict])
    case notCoreData
    case undoOff(String)
    case nothingToUndo(String)
    case nothingToRedo(String)
    /// A child reads through its parent's generation and cannot be pinned itself.
    case childCannotPin(context: String, parent: String)
    case unknownGeneration(String)
    case contextNotPinned(String)

    public var description: String {
        switch self {
        case .unknownContext(let name): return "no context named '\(name)' (see 'context list')"
        case .contextExists(let name): return "a context named '\(name)' already exists"
        case .cannotDrop(let name, let why): return "cannot drop context '\(name)': \(why)"
        case .badObjectID(let text):
            return "'\(text)' is not an object ID (write Entity/pN, or x-coredata://UUID/Entity/pN)"
        case .otherStore(let id, let uuid): return "\(id) belongs to another store (this one is \(uuid))"
        case .noSuchObject(let id): return "no object \(id) in the store"
        case .wrongEntity(let id, let expected): return "\(id) is not a \(expected)"
        case .inaccessibleFault(let id):
            return "CoreData could not fulfill a fault for '\(id)': its row is gone from the store "
                + "(turn shouldDeleteInaccessibleFaults on to have such objects marked deleted instead)"
        case .objectDeleted(let id): return "\(id) is deleted in this context"
        case .badValue(let entity, let key, let why): return "\(entity).\(key): \(why)"
        case .readOnlyProperty(let entity, let key, let why): return "\(entity).\(key) cannot be set: \(why)"
        case .validation(let failures):
            return "validation failed, nothing was saved: " + Self.list(failures.map(\.description))
        case .invalid(let failures):
            return "a save would fail: " + Self.list(failures.map(\.description))
        case .deleteDenied(let object, let relationship, let n):
            return "cannot delete \(object): its relationship '\(relationship)' has the deny delete rule and "
                + "still holds \(n) object\(n == 1 ? "" : "s")"
        case .mergeConflicts(let conflicts):
            return "save failed with \(conflicts.count) merge conflict\(conflicts.count == 1 ? "" : "s") "
                + "(merge policy error); nothing was saved and the changes are still pending: "
                + Self.list(conflicts.map(\.description))
        case .notCoreData: return "this store is not a Core Data store: it can be read but not saved to"
        case .undoOff(let name): return "undo is off for context '\(name)': it keeps no undo manager"
        case .nothingToUndo(let name): return "nothing to undo in context '\(name)'"
        case .nothingToRedo(let name): return "nothing to redo in context '\(name)'"
        case .childCannotPin(let context, let parent):
            return "context '\(context)' is a child: it reads through its parent's generation; pin '\(parent)' instead"
        case .unknownGeneration(let token):
            return "no live generation '\(token)': a generation expires when no context is pinned to it (see 'generations')"
        case .contextNotPinned(let name):
            return "context '\(name)' is not pinned, so it has no generation to share (pin it first, or use 'pin current')"
        }
    }

    /// Several failures on one line, as every error is; a long list is cut, since the first
    /// ones say what to fix.
    private static func list(_ items: [String]) -> String {
        items.prefix(5).joined(separator: "; ") + (items.count > 5 ? "; and \(items.count - 5) more" : "")
    }
}

import Foundation
import GRDB

/// A managed object context: a scratch pad of objects over the coordinator (a root
/// context) or over another context (a child). It holds one object per object ID, fires
/// faults, keeps pending changes until they are saved, rolled back or undone, and resolves
/// save conflicts with its merge policy.
///
/// The core does no terminal I/O: front ends call these methods and print what they return.
public final class Context {
    public let name: String
    public let coordinator: Coordinator
    public let parent: Context?
    public var mergePolicy: MergePolicy
    /// Keep every registered object alive, not only the changed ones (Programming Guide,
    /// "Creating a Strong Reference Between Managed Objects and the Context").
    public var retainsRegisteredObjects = false {
        didSet { retained = retainsRegisteredObjects ? liveObjects() : [:] }
    }
    /// Firing a fault whose row is gone marks the object deleted (on, the default since
    /// iOS 9) or is an error (off).
    public var shouldDeleteInaccessibleFaults = true
    /// How old (in seconds) a row snapshot may be when a fault fires before the row is read
    /// again; negative means any age, Core Data's default.
    public var stalenessInterval: TimeInterval = -1
    /// Root contexts with this set merge each other's saves, as the seed's main and
    /// background contexts are "perpetually kept in sync".
    public var automaticallyMergesChanges = false
    /// `transactionAuthor`: the author persistent history records for this context's saves
    /// and batch requests.
    public var transactionAuthor: String?
    /// The bundle identifier persistent history records for this context's writes; nil:
    /// the process's name.
    public var bundleID: String?
    /// Who this context's writes are recorded as.
    public var historyOrigin: HistoryOrigin { HistoryOrigin(author: transactionAuthor, contextName: name, bundleID: bundleID) }
    /// Off: no undo stack is kept (Core Data's `undoManager = nil`).
    public var undoEnabled = true {
        didSet { if !undoEnabled { undoStack.removeAll(); redoStack.removeAll() } }
    }

    /// The query generation a root context is pinned to; nil: unpinned (Context+Generation).
    public internal(set) var generation: Generation?
    var registry: [ObjectID: WeakObject] = [:]
    private var sweepThreshold = 4096
    /// Objects the context must keep: every changed one, until save, rollback or reset.
    var changed: [ObjectID: ManagedObject] = [:]
    /// Every registered object, when `retainsRegisteredObjects` is on.
    var retained: [ObjectID: ManagedObject] = [:]
    var undoStack: [UndoGroup] = []
    var redoStack: [UndoGroup] = []
    var openGroup: UndoGroup?

    public init(name: String, coordinator: Coordinator, parent: Context? = nil, mergePolicy: MergePolicy = .error) {
        self.name = name
        self.coordinator = coordinator
        self.parent = parent
        self.mergePolicy = mergePolicy
        if parent == nil { coordinator.register(root: self) }
    }

    var store: PersistentStore { coordinator.store }
    var mapping: StoreMapping { coordinator.mapping }

    // MARK: Registry

    /// Registered objects that are still alive, in entity and key order.
    public var registeredObjects: [ManagedObject] {
        sweepReleased()
        return registry.values.compactMap(\.object).sorted(by: ManagedObject.displayOrder)
    }

    /// Drops the weak slots of objects that have been released.
    func sweepReleased() {
        registry = registry.filter { $0.value.object != nil }
        sweepThreshold = max(4096, registry.count * 2)
    }

    func liveObjects() -> [ObjectID: ManagedObject] {
        var live: [ObjectID: ManagedObject] = [:]
        for (id, slot) in registry { if let o = slot.object { live[id] = o } }
        return live
    }

    public var hasChanges: Bool { changed.values.contains { $0.hasChanges } }

    public var insertedObjects: [ManagedObject] { changed.values.filter(\.isInserted).sorted(by: ManagedObject.displayOrder) }
    public var updatedObjects: [ManagedObject] { changed.values.filter(\.isUpdated).sorted(by: ManagedObject.displayOrder) }
    public var deletedObjects: [ManagedObject] {
        changed.values.filter { $0.isDeleted && !$0.isInserted }.sorted(by: ManagedObject.displayOrder)
    }

    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        registry[coordinator.resolve(id)]?.object ?? registry[id]?.object
    }

    func register(_ object: ManagedObject) {
        registry[object.objectID] = WeakObject(object: object)
        // Weak slots of released objects are swept once the table has doubled, so a
        // million-row fetch whose objects go as they are printed keeps the table small.
        if registry.count >= sweepThreshold { sweepReleased() }
        if retainsRegisteredObjects { retained[object.objectID] = object }
    }

    func unregister(_ object: ManagedObject) {
        registry[object.objectID] = nil
        changed[object.objectID] = nil
        retained[object.objectID] = nil
    }

    /// Keeps a changed object alive and lets an unchanged one go back to being held weakly.
    func noteChange(_ object: ManagedObject) {
        changed[object.objectID] = object.hasChanges ? object : nil
    }

    /// The object for an ID, registered as a fault if it was not registered: no I/O, as
    /// `object(with:)`.
    public func object(with id: ObjectID) throws -> ManagedObject {
        let id = coordinator.resolve(id)
        if let existing = registeredObject(for: id) { return existing }
        let entity = try store.entity(id.entityName)
        let object = ManagedObject(objectID: id, entity: entity)
        register(object)
        return object
    }

    /// The object for an ID, realized: an error when the store (or the parent) has no such
    /// object, as `existingObject(with:)`.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        let id = coordinator.resolve(id)
        if let existing = registeredObject(for: id) {
            try fire(existing)
            return existing
        }
        guard let row = try readRow(id) else { throw ContextError.noSuchObject(id.uri) }
        let object = try self.object(with: id)
        object.snapshot = row
        try fire(object)
        return object
    }

    // MARK: Faults

    /// Realizes a fault from its snapshot, or from a fresh read when there is none or it is
    /// older than the staleness interval.
    public func fire(_ object: ManagedObject) throws {
        guard object.isFault, !object.isInserted, !object.isInaccessible else { return }
        var row = object.snapshot
        if let snapshot = row, stalenessInterval >= 0,
           ProcessInfo.processInfo.systemUptime - snapshot.readAt > stalenessInterval {
            row = nil
        }
        if row == nil { row = try readRow(object.objectID) }
        guard let row else {
            guard shouldDeleteInaccessibleFaults else { throw ContextError.inaccessibleFault(object.objectID.uri) }
            object.isInaccessible = true
            object.isFault = false
            object.values = [:]
            return
        }
        object.snapshot = row
        object.values = row.values
        object.isFault = false
    }

    /// The row of an object as this context's source sees it: the parent's current state
    /// for a child (its pending changes included), the store for a root context.
    func readRow(_ id: ObjectID) throws -> RowSnapshot? {
        guard let parent else {
            guard !id.isTemporary else { return nil }
            let entity = try store.entity(id.entityName)
            let row = try readStore { db in try StoreRows.read(entity, keys: [id.primaryKey], store: store, db: db).values.first }
            if let log = store.log, log.shows(1), row != nil { log.annotation("fault fulfilled from database for : \(id)") }
            return row
        }
        if let o = parent.registeredObject(for: id) {
            if o.isDeleted || o.isInaccessible { return nil }
            if !o.isFault { return RowSnapshot(values: o.values, version: o.snapshot?.version ?? 0) }
            if let s = o.snapshot { return s }
        }
        return try parent.readRow(id)
    }

    /// Reads the store as this context sees it: at its generation when pinned (a child at
    /// its root's), else the newest committed state. Front ends use it for reads that
    /// bypass the context's objects, such as dictionary fetches.
    public func readStore<T>(_ body: (Database) throws -> T) throws -> T {
        if let parent { return try parent.readStore(body) }
        if let generation { return try generation.read(body) }
        return try coordinator.read(body)
    }

    /// The destinations of a to-many relationship, as this context's source has them.
    func readDestinations(_ id: ObjectID, _ relationship: RelationshipMapping) throws -> [ObjectID] {
        guard let parent else {
            guard !id.isTemporary else { return [] }
            return try readStore { db in try StoreRows.destinations(of: id, relationship, store: store, db: db) }
        }
        if let o = parent.registeredObject(for: id), !o.isFault, let value = o.values[relationship.relationship.name] {
            return value.destinations
        }
        return try parent.readDestinations(id, relationship)
    }

    /// A property's value, firing the object's fault and, for a to-many relationship, its
    /// relationship fault.
    public func value(of object: ManagedObject, _ key: String) throws -> ObjectValue {
        try fire(object)
        if let value = object.values[key] { return value }
        if object.isInaccessible { return .null }
        if let relationship = object.entity.relationship(key) {
            let name = relationship.relationship.name
            if let value = object.values[name] { return value }
            guard relationship.relationship.isToMany else { return .toOne(nil) }
            let ids = object.isInserted ? [] : try readDestinations(object.objectID, relationship)
            object.values[name] = .toMany(ids)
            object.snapshot?.values[name] = .toMany(ids)
            return .toMany(ids)
        }
        if let attribute = object.entity.attribute(key) {
            return object.values[attribute.attribute.name] ?? .null
        }
        throw StoreError.unknownProperty(entity: object.entity.name, name: key)
    }
}

extension Context {
    /// A key path's value (`owner.name`): each to-one on the way is followed, firing faults.
    public func value(of object: ManagedObject, keyPath: String) throws -> ObjectValue {
        var current = object
        let keys = keyPath.split(separator: ".").map(String.init)
        // `cars.@count`: the context's own count, unsaved changes included, as
        // `person.cars.count` answers in the app (firing the relationship's fault).
        if keys.count > 1, keys.last == "@count" {
            switch try value(of: object, keyPath: keys.dropLast().joined(separator: ".")) {
            case .toMany(let ids): return .attribute(.integer(Int64(ids.count)))
            case .toOne(nil), .attribute(.null): return .attribute(.null)
            default: throw StoreError.unknownProperty(entity: object.entity.name, name: keyPath)
            }
        }
        var i = 0
        while i < keys.count - 1 {
            // A composite's leaf (`address.city`) is one attribute, not a step.
            if let (leaf, end) = current.entity.compositeLeaf(keys, from: i), end == keys.count - 1 {
                return try value(of: current, leaf.attribute.name)
            }
            guard case .toOne(let id?) = try value(of: current, keys[i]) else { return .null }
            current = try self.object(with: id)
            i += 1
        }
        return try value(of: current, keys.last ?? keyPath)
    }
}

extension ObjectID {
    /// The order listings show objects in: by entity, saved objects by key, then unsaved ones.
    static func displayOrder(_ a: ObjectID, _ b: ObjectID) -> Bool {
        if a.entityName != b.entityName { return a.entityName < b.entityName }
        if a.isTemporary != b.isTemporary { return !a.isTemporary }
        return abs(a.primaryKey) < abs(b.primaryKey)
    }
}

extension ManagedObject {
    static func displayOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        ObjectID.displayOrder(a.objectID, b.objectID)
    }
}

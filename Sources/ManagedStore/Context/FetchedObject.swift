import Foundation

/// One object of a fetch result as it streams past: its ID and the values of the keys the
/// fetch was asked for.
///
/// An object the context had already registered (or matched among its unsaved changes) is
/// handed over as that object, showing its in-memory values. Any other row is handed over as
/// the row: its object is made and registered only when `object()` asks for one. A Core Data
/// app that prints a million fetched objects and lets the array go ends with none of them
/// registered; here the objects are not made in the first place, so a context fetch costs
/// what reading the rows costs.
public struct FetchedObject {
    public let objectID: ObjectID
    fileprivate let source: Source
    fileprivate let cursor: FetchCursor

    fileprivate enum Source {
        case registered(ManagedObject)
        case row(FetchedRow)
    }

    fileprivate init(_ objectID: ObjectID, _ source: Source, _ cursor: FetchCursor) {
        self.objectID = objectID
        self.source = source
        self.cursor = cursor
    }

    /// The value of the `index`th key the fetch was asked for. A key the row does not hold
    /// (a key path, a to-many relationship) is read through the object, firing its fault.
    public func value(_ index: Int) throws -> ObjectValue {
        switch source {
        case .registered(let object):
            let key = cursor.keys[index]
            return try object.visibleValues[key] ?? cursor.context.value(of: object, keyPath: key)
        case .row(let row):
            if let slot = cursor.slots[index] { return ObjectValue(row.values[slot]) }
            return try cursor.context.value(of: object(), keyPath: cursor.keys[index])
        }
    }

    /// The registered object, made now (a fault holding the fetched row) if it was not.
    public func object() throws -> ManagedObject {
        switch source {
        case .registered(let object): return object
        case .row(let row): return try cursor.context.registerFetched(objectID, row, plan: cursor.plan, options: cursor.options)
        }
    }
}

/// What every object of one fetch shares: built once, so a row costs no lookups by name.
final class FetchCursor {
    unowned let context: Context
    let plan: FetchPlan
    let options: FetchOptions
    let keys: [String]
    /// Where each key sits among the plan's properties; nil for a key the row lacks.
    let slots: [Int?]
    /// The context's live objects in the fetched table, by primary key, as the fetch began.
    let registered: [Int64: ManagedObject]

    init(context: Context, plan: FetchPlan, options: FetchOptions, keys: [String]) {
        self.context = context
        self.plan = plan
        self.options = options
        self.keys = keys
        var positions: [String: Int] = [:]
        for (i, property) in plan.properties.enumerated() { positions[property.name] = i }
        slots = keys.map { positions[$0] }
        var registered: [Int64: ManagedObject] = [:]
        for object in context.liveObjects().values where !object.objectID.isTemporary {
            if object.entity.table == plan.entity.table { registered[object.objectID.primaryKey] = object }
        }
        self.registered = registered
    }

    /// The row as the fetch hands it over: the registered object updated from it, or the row.
    func fetched(_ id: ObjectID, _ row: FetchedRow) throws -> FetchedObject {
        if !registered.isEmpty, let object = registered[id.primaryKey] {
            try context.takeFetched(row, into: object, plan: plan, options: options)
            return FetchedObject(id, .registered(object), self)
        }
        let fetched = FetchedObject(id, .row(row), self)
        // Registered objects are kept alive: each must be registered as it is fetched.
        if context.retainsRegisteredObjects { _ = try fetched.object() }
        return fetched
    }

    func fetched(_ object: ManagedObject) -> FetchedObject {
        FetchedObject(object.objectID, .registered(object), self)
    }
}

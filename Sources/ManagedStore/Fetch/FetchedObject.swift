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
///
/// Noncopyable, and handed to the fetch's body borrowed: it cannot be kept past the row it
/// stands for, so it points at the row the fetch is on and at the fetch's cursor without
/// copying the one or counting references to either. Copying and counting them was most of
/// a fetch's per-row cost outside SQLite (`perf record` on narrow rows). What outlives the
/// row is `objectID` and `object()`.
public struct FetchedObject: ~Copyable {
    /// The row's entity and primary key: the ID is made from them only when asked for, so
    /// that handing an object on copies no string.
    private let key: RowKey
    /// The object the context has for the row, if it had one; else the row's own values.
    /// Two plain fields rather than an enum: reading a value then borrows the row instead
    /// of copying it, which at ten values a row and a million rows is most of a fetch.
    private let registered: ManagedObject?
    /// The row the fetch is on, valid while the body this object was handed to runs; nil
    /// for an unsaved match, which has no row (`registered` answers for it).
    private let row: UnsafePointer<FetchedRow>?
    /// Not counted: the fetch holds its cursor while this object exists. Reached only
    /// through `cursor(_:)`: a plain `unowned(unsafe)` reference gave a strong copy at each
    /// use, and a copy of the plan with it.
    private let cursorReference: Unmanaged<FetchCursor>

    fileprivate init(_ key: RowKey, registered: ManagedObject?, row: UnsafePointer<FetchedRow>?, _ cursor: FetchCursor) {
        self.key = key
        self.registered = registered
        self.row = row
        cursorReference = Unmanaged.passUnretained(cursor)
    }

    @inline(__always)
    private func cursor<R>(_ body: (FetchCursor) throws -> R) rethrows -> R {
        try cursorReference._withUnsafeGuaranteedRef(body)
    }

    public var objectID: ObjectID { registered?.objectID ?? cursor { $0.plan.objectID(key) } }

    /// The object ID's entity and primary key, without making the ID: what a URI needs
    /// once its entity's prefix is known.
    public var entityName: String { registered?.objectID.entityName ?? cursor { $0.plan.entityName(key) } }
    public var primaryKey: Int64 { key.primaryKey }

    /// The value of the `index`th key the fetch was asked for. A key the row does not hold
    /// (a key path, a to-many relationship) is read through the object, firing its fault.
    public func value(_ index: Int) throws -> ObjectValue {
        try cursor { cursor in
            if let registered {
                let key = cursor.keys[index]
                return try registered.visibleValues[key] ?? cursor.context.value(of: registered, keyPath: key)
            }
            let slot = cursor.slots[index]
            if slot >= 0, let row { return try row.pointee.value(at: slot) }
            return try cursor.context.value(of: object(), keyPath: cursor.keys[index])
        }
    }

    /// The same value handed to `body` as it sits in the row, where the row holds a plain
    /// attribute's column unread (see `RowValue`); only while the fetch is on this object.
    public func withValue(_ index: Int, _ body: (RowValue) throws -> Void) throws {
        let slot = cursor { $0.slots[index] }
        if registered == nil, slot >= 0, let row { return try row.pointee.withValue(at: slot, body) }
        return try body(.decoded(value(index)))
    }

    /// Every key's value, in the order the fetch was asked for them, each handed to `body`
    /// as `withValue` hands it: for a row, in one call, which costs less than one per key.
    public func withValues(_ body: (RowValue) throws -> Void) throws {
        try cursor { cursor in
            if registered == nil, cursor.rowHoldsEveryKey, let row { return try row.pointee.withValues(at: cursor.slots, body) }
            for i in cursor.keys.indices { try withValue(i, body) }
        }
    }

    /// The registered object, made now (a fault holding the fetched row) if it was not.
    public func object() throws -> ManagedObject {
        if let registered { return registered }
        // Every object without a registered one has a row.
        guard let row else { throw FetchError.rowNoLongerCurrent }
        return try cursor { cursor in
            try cursor.context.registerFetched(cursor.plan.objectID(key), try row.pointee.complete(), plan: cursor.plan, options: cursor.options)
        }
    }
}

/// What every object of one fetch shares: built once, so a row costs no lookups by name.
final class FetchCursor {
    unowned let context: Context
    let plan: FetchPlan
    let options: FetchOptions
    let keys: [String]
    /// Where each key sits among the plan's properties; -1 for a key the row lacks.
    let slots: [Int]
    /// No key is read through the object (none has slot -1).
    let rowHoldsEveryKey: Bool
    /// The properties a row must decode for the keys: the rest wait for `complete()`, and
    /// a key that is a plain attribute is read in place (`withValue`). Nil when every row
    /// is registered, which needs them all.
    let needed: [Bool]?
    /// Read once: the context is reached through an unowned reference, which costs a
    /// reference count round trip on each use.
    let registersEveryRow: Bool
    /// The context's live objects in the fetched table, by primary key, as the fetch began;
    /// nil when there are none (an empty dictionary is a shared immortal object, whose
    /// reference counting takes the runtime's slow path on every row).
    let registered: [Int64: ManagedObject]?

    init(context: Context, plan: FetchPlan, options: FetchOptions, keys: [String]) {
        self.context = context
        self.plan = plan
        self.options = options
        self.keys = keys
        var positions: [String: Int] = [:]
        for (i, property) in plan.properties.enumerated() { positions[property.name] = i }
        slots = keys.map { positions[$0] ?? -1 }
        rowHoldsEveryKey = !slots.contains(-1)
        registersEveryRow = context.retainsRegisteredObjects
        // A key path (`owner.name`) or a to-many key is read through the object, which
        // completes the row: its first key is decoded all the same, as it is often all it needs.
        let read = Set(keys + keys.compactMap { $0.split(separator: ".", maxSplits: 1).first.map(String.init) })
        needed = registersEveryRow ? nil : zip(plan.properties, plan.decoders).map { property, decoder in
            read.contains(property.name) && !decoder.readsInPlace
        }
        var registered: [Int64: ManagedObject] = [:]
        for object in context.liveObjects().values where !object.objectID.isTemporary {
            if object.entity.table == plan.entity.table { registered[object.objectID.primaryKey] = object }
        }
        self.registered = registered.isEmpty ? nil : registered
    }

    /// The row as the fetch hands it over: the registered object updated from it, or the row.
    /// `row` points at the row the fetch is on, for as long as the object is used.
    func fetched(_ key: RowKey, _ row: UnsafePointer<FetchedRow>) throws -> FetchedObject {
        if let object = registered?[key.primaryKey] {
            try context.takeFetched(try row.pointee.complete(), into: object, plan: plan, options: options)
            return FetchedObject(key, registered: object, row: row, self)
        }
        let fetched = FetchedObject(key, registered: nil, row: row, self)
        // Registered objects are kept alive: each must be registered as it is fetched.
        if registersEveryRow { _ = try fetched.object() }
        return fetched
    }

    func fetched(_ object: ManagedObject) -> FetchedObject {
        FetchedObject(RowKey(entityID: -1, primaryKey: object.objectID.primaryKey), registered: object, row: nil, self)
    }
}

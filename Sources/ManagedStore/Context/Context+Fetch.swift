import Foundation

/// The switches of a fetch request that concern a context.
public struct FetchOptions: Sendable {
    /// Match the context's unsaved inserts, updates and deletes in memory (Core Data's
    /// default), as well as its ancestors' for a child.
    public var includesPendingChanges = true
    /// Register fetched objects as faults holding the fetched row; off, they are realized.
    public var returnsObjectsAsFaults = true
    /// Object IDs only (managedObjectIDResultType): objects are registered as faults with
    /// no row data, so firing one reads its row.
    public var idsOnly = false
    /// Give realized objects the fetched values; off (the default), they keep their
    /// in-memory values (Programming Guide, "Ensuring Data Is Up to Date").
    public var refreshesRefetchedObjects = false

    public init() {}
}

/// A fetch request prepared in one context: the SQL the store runs for it, built once (its
/// predicate compiled once, whatever then reads it: the command's warnings, the rows, the
/// count), and the unsaved objects of the context and its ancestors that match it in memory.
/// Run it in the context that prepared it, before that context changes.
public struct PreparedFetch {
    public let request: FetchRequest
    /// The statement for the store's rows: the request's, less the objects changed in memory.
    public let plan: FetchPlan
    let matches: [ManagedObject]
    let options: FetchOptions

    /// What compiling the request found worth saying (a to-many key Core Data would refuse…).
    public var warnings: [String] { plan.warnings }
}

extension Context {
    /// Prepares `request`: a count when its result type is `.count`, objects (or their IDs,
    /// with `options.idsOnly`) otherwise.
    public func prepareFetch(_ request: FetchRequest, options: FetchOptions = FetchOptions()) throws -> PreparedFetch {
        let entity = try store.entity(request.entityName)
        // A page by key is the store's rows in the store's order (see `FetchRequest.after`).
        let (pending, matches) = request.after == nil ? try pendingMatches(request, entity: entity, options: options) : ([], [])
        var sqlRequest = request
        if request.resultType == .count {
            // Unsaved matches are added to the store's count, then the offset and limit apply.
            // With none, the store applies them: a count limited to 10,001 of 10 million rows
            // reads 10,001 of them.
            if !matches.isEmpty || !pending.isEmpty {
                sqlRequest.fetchLimit = nil
                sqlRequest.fetchOffset = nil
            }
        } else {
            // Object IDs only select the keys, as managedObjectIDResultType does.
            sqlRequest.resultType = options.idsOnly ? .ids : .objects
            sqlRequest = sqlRequest.storeRequest
            if !matches.isEmpty {
                sqlRequest.fetchLimit = request.fetchLimit.map { $0 + (request.fetchOffset ?? 0) }
                sqlRequest.fetchOffset = nil
            }
        }
        sqlRequest.excludedPrimaryKeys = pending.filter { $0.primaryKey > 0 }.map(\.primaryKey)
        return PreparedFetch(request: request, plan: try FetchPlan(sqlRequest, store: store), matches: matches, options: options)
    }

    /// Runs a fetch request in this context and hands each object to `body` in order, as
    /// SQLite produces the rows, with the values of `keys` at hand. Objects changed in memory
    /// are matched in memory and merged into the stream at their sort position; the store's
    /// copy of them is left out. Rows of objects the context has not registered are handed
    /// over unregistered (see `FetchedObject`).
    @discardableResult
    public func fetch(_ request: FetchRequest, keys: [String] = [], options: FetchOptions = FetchOptions(),
                      _ body: (borrowing FetchedObject) throws -> Void) throws -> Int {
        try fetch(try prepareFetch(request, options: options), keys: keys, body)
    }

    /// Runs a prepared fetch (see `fetch(_:keys:options:_:)`).
    @discardableResult
    public func fetch(_ prepared: PreparedFetch, keys: [String] = [], _ body: (borrowing FetchedObject) throws -> Void) throws -> Int {
        let plan = prepared.plan
        let cursor = FetchCursor(context: self, plan: plan, options: prepared.options, keys: keys)
        guard !prepared.matches.isEmpty else {
            // Rows only: the loop captures as little as it can, since whatever it captures
            // is retained and released again on every row.
            var emitted = 0
            _ = try readStore { db in
                try plan.forEachRow(db, decoding: cursor.needed) { row in
                    guard let key = row.pointee.key else { return }
                    // The object points at the row rather than copying it; it cannot outlive
                    // the body (noncopyable, handed over borrowed).
                    try body(cursor.fetched(key, row))
                    emitted += 1
                }
            }
            return emitted
        }
        return try merge(prepared.matches, into: plan, cursor: cursor, request: prepared.request, body)
    }

    /// Streams the rows with the unsaved matches placed among them by the request's sort
    /// order, applying the request's offset and limit to the whole.
    private func merge(_ matches: [ManagedObject], into plan: FetchPlan, cursor: FetchCursor, request: FetchRequest,
                       _ body: (borrowing FetchedObject) throws -> Void) throws -> Int {
        let evaluator = PredicateEvaluator(text: request.predicateText)
        var next = 0, position = 0, emitted = 0
        let offset = request.fetchOffset ?? 0
        let limit = request.fetchLimit
        func emit(_ object: borrowing FetchedObject) throws {
            defer { position += 1 }
            guard position >= offset, limit.map({ emitted < $0 }) ?? true else { return }
            emitted += 1
            try body(object)
        }
        _ = try readStore { db in
            try plan.forEachRow(db, decoding: cursor.needed) { row in
                guard let key = row.pointee.key else { return }
                let fetched = try cursor.fetched(key, row)
                if next < matches.count {
                    // Placing unsaved matches among the rows compares objects.
                    let object = try fetched.object()
                    while next < matches.count, try sortOrder(matches[next], object, request, evaluator) < 0 {
                        try emit(cursor.fetched(matches[next]))
                        next += 1
                    }
                }
                try emit(fetched)
            }
        }
        while next < matches.count {
            try emit(cursor.fetched(matches[next]))
            next += 1
        }
        return emitted
    }

    /// Runs a dictionary plan. Dictionaries never include pending changes in Core Data, so
    /// they read the store, at the context's generation when it is pinned.
    @discardableResult
    public func fetchDictionaries(_ plan: FetchPlan, _ body: (FetchedRow) throws -> Void) throws -> Int {
        try readStore { db in try plan.forEach(db, body) }
    }

    /// Counts what `fetch` would return, without registering anything.
    public func count(_ request: FetchRequest, options: FetchOptions = FetchOptions()) throws -> Int {
        var counting = request
        counting.resultType = .count
        return try count(try prepareFetch(counting, options: options))
    }

    /// Counts a fetch prepared as a count.
    public func count(_ prepared: PreparedFetch) throws -> Int {
        let total = try readStore { try prepared.plan.count($0) } + prepared.matches.count
        // The store applied the offset and limit itself when nothing was pending (`prepareFetch`).
        if prepared.plan.request.fetchLimit != nil || prepared.plan.request.fetchOffset != nil { return total }
        let afterOffset = max(0, total - (prepared.request.fetchOffset ?? 0))
        return prepared.request.fetchLimit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// IDs of objects of the entity's table that this context or an ancestor has changed,
    /// and those of them that match the request in memory, sorted.
    func pendingMatches(_ request: FetchRequest, entity: EntityMapping,
                        options: FetchOptions) throws -> (pending: Set<ObjectID>, matches: [ManagedObject]) {
        guard options.includesPendingChanges else { return ([], []) }
        var pending = Set<ObjectID>()
        var context: Context? = self
        while let c = context {
            for (id, object) in c.changed where object.hasChanges {
                if let e = mapping.entity(named: id.entityName), e.table == entity.table { pending.insert(id) }
            }
            context = c.parent
        }
        guard !pending.isEmpty else { return ([], []) }
        let wanted = Set(entity.entityIDs)
        let evaluator = PredicateEvaluator(text: request.predicateText)
        var matches: [ManagedObject] = []
        for id in pending.sorted(by: { abs($0.primaryKey) < abs($1.primaryKey) }) {
            guard let e = mapping.entity(named: id.entityName), let eid = e.entityID, wanted.contains(eid) else { continue }
            let object = try self.object(with: id)
            try fire(object)
            if object.isDeleted || object.isInaccessible { continue }
            if let predicate = request.predicate,
               try !evaluator.evaluate(predicate, with: ObjectEvaluation(object: object, context: self)) { continue }
            matches.append(object)
        }
        do {
            var failure: Error?
            matches.sort { a, b in
                do { return try sortOrder(a, b, request, evaluator) < 0 } catch { failure = error; return false }
            }
            if let failure { throw failure }
        }
        return (pending, matches)
    }

    /// Orders two objects by the request's sort descriptors; without any, by primary key,
    /// the order SQLite returns rows in, with unsaved objects last.
    func sortOrder(_ a: ManagedObject, _ b: ManagedObject, _ request: FetchRequest, _ evaluator: PredicateEvaluator) throws -> Int {
        if request.sortDescriptors.isEmpty {
            let (x, y) = (a.objectID, b.objectID)
            if x.isTemporary != y.isTemporary { return x.isTemporary ? 1 : -1 }
            return abs(x.primaryKey) < abs(y.primaryKey) ? -1 : abs(x.primaryKey) > abs(y.primaryKey) ? 1 : 0
        }
        for sort in request.sortDescriptors {
            let x = try evaluator.sortValue(sort.keyPath, of: ObjectEvaluation(object: a, context: self))
            let y = try evaluator.sortValue(sort.keyPath, of: ObjectEvaluation(object: b, context: self))
            let order = PredicateEvaluator.sortOrder(x, y)
            if order != 0 { return sort.ascending ? order : -order }
        }
        return 0
    }

    /// Registers a fetched row: a fault takes it as its snapshot; a realized object keeps
    /// its values unless the fetch refreshes refetched objects.
    func registerFetched(_ id: ObjectID, _ row: FetchedRow, plan: FetchPlan, options: FetchOptions) throws -> ManagedObject {
        let object = try self.object(with: id)
        try takeFetched(row, into: object, plan: plan, options: options)
        return object
    }

    func takeFetched(_ row: FetchedRow, into object: ManagedObject, plan: FetchPlan, options: FetchOptions) throws {
        if object.isFault {
            if options.idsOnly { return }
            object.snapshot = StoreRows.snapshot(row, plan: plan)
            object.isInaccessible = false
            if !options.returnsObjectsAsFaults { try fire(object) }
        } else if options.refreshesRefetchedObjects, !object.hasChanges {
            let snapshot = StoreRows.snapshot(row, plan: plan)
            object.snapshot = snapshot
            object.values = snapshot.values
        }
    }
}

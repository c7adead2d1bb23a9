/// A fetch request as Core Data has one: an entity, a predicate, sort descriptors, limit
/// and offset, and what to return.
public struct FetchRequest: Sendable {
    public enum ResultType: String, Sendable, CaseIterable {
        case objects, ids, dicts, count
    }

    public struct SortDescriptor: Sendable, Equatable {
        public var keyPath: String
        public var ascending: Bool

        public init(keyPath: String, ascending: Bool = true) {
            self.keyPath = keyPath
            self.ascending = ascending
        }

        /// `KEY`, `KEY:asc` or `KEY:desc`.
        public init?(parsing text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), !parts[0].isEmpty else { return nil }
            keyPath = String(parts[0])
            switch parts.count == 2 ? parts[1].lowercased() : "asc" {
            case "asc", "ascending": ascending = true
            case "desc", "descending": ascending = false
            default: return nil
            }
        }
    }

    public var entityName: String
    public var predicate: Predicate?
    /// The predicate as written, for error messages.
    public var predicateText: String
    public var sortDescriptors: [SortDescriptor]
    public var fetchLimit: Int?
    public var fetchOffset: Int?
    /// Properties (or to-one key paths) to return; all stored attributes and to-one
    /// relationships when nil. `KEY.@count` after a to-many relationship returns its count;
    /// objects (not dictionaries) may also name a to-many relationship, for its destinations.
    public var propertiesToFetch: [String]?
    public var resultType: ResultType
    /// Core Data's batched fetch: object IDs first, then the rows in batches of this size.
    public var batchSize: Int?
    /// Restricts the fetch to these rows of the entity's table (a fault being fired).
    public var primaryKeys: [Int64]?
    /// Leaves these rows out: a context answers for objects it has changed from memory.
    public var excludedPrimaryKeys: [Int64] = []
    /// Paging by key: the rows from this position on (`.start`, or after a row), in the order
    /// of the sort key and then the primary key (see `KeysetPosition`). The store's rows, in the store's order:
    /// a context does not place its unsaved objects among them.
    public var after: KeysetPosition?

    public init(entityName: String, predicate: Predicate? = nil, predicateText: String = "",
                sortDescriptors: [SortDescriptor] = [], fetchLimit: Int? = nil, fetchOffset: Int? = nil,
                propertiesToFetch: [String]? = nil, resultType: ResultType = .objects, batchSize: Int? = nil) {
        self.entityName = entityName
        self.predicate = predicate
        self.predicateText = predicateText
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.propertiesToFetch = propertiesToFetch
        self.resultType = resultType
        self.batchSize = batchSize
    }

    /// What a context's fetch asks the store for: objects and object IDs load every stored
    /// property of the row, as a managed object holds them, and `propertiesToFetch` only
    /// names the keys handed over; dictionaries and counts select what they name. One rule
    /// for the fetch and for the SQL shown without running it.
    /// The request with only what names the keys it shows: no predicate, sort, limit or
    /// excluded keys, for resolving `propertiesToFetch` without compiling the rest again.
    public var keysOnly: FetchRequest {
        var request = self
        request.predicate = nil
        request.predicateText = ""
        request.sortDescriptors = []
        request.fetchLimit = nil
        request.fetchOffset = nil
        request.excludedPrimaryKeys = []
        request.primaryKeys = nil
        request.batchSize = nil
        return request
    }

    /// Objects read with `propertiesToFetch` only, not their whole rows: for a reader whose
    /// context ends with the fetch (a web page), so that columns it does not show (a 100 MB
    /// photo) are never read. Core Data has no such request; its SQL is not what `explain` shows.
    public var readsPropertiesToFetchOnly = false

    public var storeRequest: FetchRequest {
        guard resultType == .objects || resultType == .ids, !(readsPropertiesToFetchOnly && propertiesToFetch != nil) else { return self }
        var request = self
        request.propertiesToFetch = nil
        return request
    }
}

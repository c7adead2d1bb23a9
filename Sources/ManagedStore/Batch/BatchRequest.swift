import Foundation

/// What a batch request returns (`NSBatchUpdateResult.resultType`).
public enum BatchResultType: String, Sendable, CaseIterable {
    /// Whether it succeeded (statusOnlyResultType).
    case status
    /// How many rows it changed (updatedObjectsCountResultType).
    case count
    /// The IDs of the changed objects (updatedObjectIDsResultType).
    case ids
}

/// `NSBatchUpdateRequest`: new values for every row of an entity (sub-entities included)
/// that matches a predicate, written straight to the store in one statement.
public struct BatchUpdateRequest: Sendable {
    public var entityName: String
    public var predicate: Predicate?
    public var predicateText: String
    /// `(key, expression)` pairs: a predicate-language constant or an expression over the
    /// row's own attributes (`age + 1`).
    public var propertiesToUpdate: [(key: String, expression: String)]
    public var resultType: BatchResultType

    public init(entityName: String, predicate: Predicate? = nil, predicateText: String = "",
                propertiesToUpdate: [(key: String, expression: String)], resultType: BatchResultType = .status) {
        self.entityName = entityName
        self.predicate = predicate
        self.predicateText = predicateText
        self.propertiesToUpdate = propertiesToUpdate
        self.resultType = resultType
    }
}

/// `NSBatchDeleteRequest`: deletes every matching row, applying the delete rules of the
/// deleted objects' relationships in the same transaction.
public struct BatchDeleteRequest: Sendable {
    public var entityName: String
    public var predicate: Predicate?
    public var predicateText: String
    public var resultType: BatchResultType

    public init(entityName: String, predicate: Predicate? = nil, predicateText: String = "", resultType: BatchResultType = .status) {
        self.entityName = entityName
        self.predicate = predicate
        self.predicateText = predicateText
        self.resultType = resultType
    }
}

/// What a batch request changed. IDs are kept compactly (entity name, then keys), because a
/// batch request may touch millions of rows; they are what `merge` hands to contexts.
public struct BatchResult: Sendable {
    /// Rows the statement changed (sqlite3_changes), cascaded deletions included.
    public var count = 0
    /// The changed objects' keys by concrete entity, when they were asked for.
    public var changed: [String: [Int64]]?
    /// Objects a batch delete's predicate matched, and those its cascade rules deleted.
    public var deleted: [String: [Int64]]?
    public var cascaded: [String: [Int64]]?
    public let storeUUID: String
    /// What the app's own request would do differently (ALL/NONE on a to-many key).
    public var warnings: [String] = []

    public init(storeUUID: String) { self.storeUUID = storeUUID }

    /// Every ID the result holds, updated then deleted, in entity and key order.
    public func objectIDs(_ keys: [String: [Int64]]?) -> [ObjectID] {
        (keys ?? [:]).sorted { $0.key < $1.key }.flatMap { entity, keys in
            keys.map { ObjectID(storeUUID: storeUUID, entityName: entity, primaryKey: $0) }
        }
    }
}

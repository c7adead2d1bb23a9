import Foundation

/// `NSPersistentHistoryChangeType`, as `ACHANGE.ZCHANGETYPE` stores it.
public enum HistoryChangeType: Int64, Sendable, CaseIterable {
    case insert = 0
    case update = 1
    case delete = 2

    public var name: String {
        switch self {
        case .insert: return "insert"
        case .update: return "update"
        case .delete: return "delete"
        }
    }

    public init?(name: String) {
        guard let found = HistoryChangeType.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = found
    }
}

/// One `ATRANSACTION` row (`NSPersistentHistoryTransaction`): its token is its `Z_PK`.
public struct HistoryTransaction: Sendable, Equatable {
    public var token: Int64
    /// Seconds since the reference date (2001-01-01 UTC), as `ZTIMESTAMP` stores them.
    public var timestamp: Double?
    public var author: String?
    public var contextName: String?
    public var bundleID: String?
    public var processID: String?
    /// Changes of each type in the transaction (of those the request matched).
    public var inserts = 0
    public var updates = 0
    public var deletes = 0
}

/// One `ACHANGE` row (`NSPersistentHistoryChange`).
public struct HistoryChange: Sendable, Equatable {
    public var token: Int64
    /// nil when `ZCHANGETYPE` holds a number Core Data does not write.
    public var type: HistoryChangeType?
    public var storedType: Int64
    /// The changed row's own entity (a sub-entity, not the root), nil when the store's model
    /// has no entity with its `ZENTITY` number.
    public var entityName: String?
    public var entityNumber: Int64
    public var primaryKey: Int64
    /// For an update, the properties `ZCOLUMNS` marks; a bit the rule cannot name is `#N`.
    public var updatedProperties: [String]?
    /// For a delete, the values history kept, under their attribute names.
    public var tombstone: [(name: String, value: AttributeValue)]

    public static func == (a: HistoryChange, b: HistoryChange) -> Bool {
        a.token == b.token && a.storedType == b.storedType && a.entityNumber == b.entityNumber && a.primaryKey == b.primaryKey
            && a.updatedProperties == b.updatedProperties && a.tombstone.map(\.name) == b.tombstone.map(\.name)
            && a.tombstone.map(\.value) == b.tombstone.map(\.value)
    }
}

import Foundation

/// Who writes a transaction, as `NSManagedObjectContext.transactionAuthor` and `name` say,
/// and the bundle the writing process belongs to.
public struct HistoryOrigin: Sendable, Equatable {
    public var author: String?
    public var contextName: String?
    /// Every transaction Core Data writes carries its app's bundle identifier, and apps
    /// filter history by it; nil records the process's name in its place.
    public var bundleID: String?

    public init(author: String?, contextName: String?, bundleID: String? = nil) {
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
    }
}

/// What a history request asks for (`NSPersistentHistoryChangeRequest` with its fetch
/// requests on transactions and changes). Every filter narrows; none set reads everything.
public struct HistoryQuery: Sendable {
    /// Transactions after this token (`ATRANSACTION.Z_PK`), as `fetchHistory(after:)`.
    public var after: Int64?
    /// Reference-date seconds, inclusive at both ends.
    public var since: Double?
    public var until: Double?
    public var author: String?
    public var contextName: String?
    /// Changes of this entity and its sub-entities.
    public var entity: EntityMapping?
    /// One object's changes: its entity (sub-entities included) and primary key.
    public var object: (entity: EntityMapping, primaryKey: Int64)?
    public var type: HistoryChangeType?
    /// Transactions, or with changes, changes.
    public var limit: Int?
    /// Rows (transactions, or with changes, changes) to pass over first: a page after the
    /// ones already read.
    public var offset: Int?

    public init() {}

    /// Whether the query picks changes, so that only transactions with a matching change,
    /// and only those changes, are shown (as Core Data filters by a change fetch request).
    var filtersChanges: Bool { entity != nil || object != nil || type != nil }
}

extension HistoryQuery {
    /// A date as a user types it (ISO 8601, a day or a moment), in reference-date seconds.
    public static func date(parsing text: String) throws -> Double {
        guard let seconds = ValueParsing.parseDate(text) else { throw HistoryError.badDate(text) }
        return seconds
    }

    /// A token as a user types it: the number `token` prints, or `history` lists.
    public static func token(parsing text: String) throws -> Int64 {
        guard let token = Int64(text.trimmingCharacters(in: .whitespaces)) else { throw HistoryError.notAToken(text) }
        return token
    }

    /// One object's changes; the object may be gone, so only its entity must exist.
    public static func object(parsing text: String, store: PersistentStore) throws -> (entity: EntityMapping, primaryKey: Int64) {
        guard let parsed = ObjectID.parse(text), parsed.primaryKey > 0 else { throw ContextError.badObjectID(text) }
        if let uuid = parsed.storeUUID, !uuid.isEmpty, uuid != store.uuid {
            throw ContextError.otherStore(id: text, uuid: store.uuid)
        }
        return (try store.entity(parsed.entityName), parsed.primaryKey)
    }
}

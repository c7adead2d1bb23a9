/// One object that changed while a store was watched, between two looks: several commits in
/// between merge into one event (an insert then an update is an insert with the newest
/// values).
public struct WatchEvent {
    public enum Kind: String, Sendable {
        case inserted = "insert"
        case updated = "update"
        case deleted = "delete"
        /// Now matches the watch's predicate and did not (a fetched results controller's
        /// move into its fetch); an update or an insert of a row that did not match.
        case entered = "enters"
        /// Matched the predicate and no longer does.
        case left = "leaves"
    }

    public var kind: Kind
    public var objectID: ObjectID
    /// The values now: every key of an inserted or entering object, the changed keys of an
    /// updated one (a to-many relationship as its destinations); none for a delete or an
    /// object that left. `watch` keeps no old values, only a hash of each.
    public var values: [(key: String, value: ObjectValue)]
    /// The history transaction that made the change, when the store keeps history and the
    /// writer recorded it (a sqlite3 shell does not).
    public var transaction: HistoryTransaction?
}

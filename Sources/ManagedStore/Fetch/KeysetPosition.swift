import GRDB

/// Where a page read by key starts: just after one row, in the order of the request's sort
/// key and then the primary key (which makes the order total, so that ties are neither
/// skipped nor shown twice). A page after it is a range of the sort key's index, however far
/// into the table it is, where an OFFSET reads and drops every row before it.
public enum KeysetPosition: Sendable, Equatable {
    /// The first page: every row, in the keyset's order.
    case start
    /// After the row with this primary key (`Z_PK`), whose sort key held `value` (as the
    /// column stores it; nil when the request has no sort key).
    case after(primaryKey: Int64, value: StoredValue?)

    /// The position of the object `objectID` in `request`'s order: its sort key read from the
    /// store. An object that is not there (deleted since the page was shown) is an error
    /// naming it.
    public static func after(_ objectID: ObjectID, in request: FetchRequest, store: PersistentStore) throws -> KeysetPosition {
        guard request.sortDescriptors.count <= 1 else { throw FetchError.badOption(FetchError.keysetSortKeys) }
        guard let sort = request.sortDescriptors.first else { return .after(primaryKey: objectID.primaryKey, value: nil) }
        let entity = try store.entity(request.entityName)
        let compiler = PredicateCompiler(mapping: store.mapping, text: "")
        let root = compiler.rootScope(entity)
        let term: SQLFragment
        do { term = try compiler.orderTerm(sort.keyPath, in: root) } catch let e as PredicateFormatError {
            throw FetchError.badSortKey(sort.keyPath, e.message)
        }
        let sql = "SELECT " + term.sql + " FROM " + root.from.sql + " WHERE " + root.primaryKey + " = ?"
        let found = try store.reader.read { db -> DatabaseValue? in
            let row = try Row.fetchOne(db, sql: sql, arguments: StatementArguments(term.arguments + [objectID.primaryKey.databaseValue]))
            return row.map { $0[0] as DatabaseValue }
        }
        guard let found else { throw FetchError.objectGone(objectID.uri) }
        return .after(primaryKey: objectID.primaryKey, value: StoredValue(found))
    }

    /// The condition for the rows after this position, `term` being the sort key's SQL and
    /// `primaryKey` the row's key column. SQLite sorts NULL first ascending and last
    /// descending; the first term of each form is a range of the sort key's index.
    func condition(term: SQLFragment?, ascending: Bool, primaryKey: String) -> SQLFragment? {
        guard case .after(let key, let value) = self else { return nil }
        let p = key.databaseValue
        guard let term else { return SQLFragment("\(primaryKey) > ?", [p]) }
        let t = "(" + term.sql + ")"
        let a = term.arguments
        switch (value ?? .null, ascending) {
        case (.null, true):
            return SQLFragment("(\(t) IS NOT NULL OR \(primaryKey) > ?)", a + [p])
        case (.null, false):
            return SQLFragment("(\(t) IS NULL AND \(primaryKey) > ?)", a + [p])
        case (let v, true):
            let bound = v.databaseValue
            return SQLFragment("(\(t) >= ? AND (\(t) > ? OR \(primaryKey) > ?))", a + [bound] + a + [bound, p])
        case (let v, false):
            let bound = v.databaseValue
            return SQLFragment("((\(t) <= ? AND (\(t) < ? OR \(primaryKey) > ?)) OR \(t) IS NULL)", a + [bound] + a + [bound, p])
        }
    }
}

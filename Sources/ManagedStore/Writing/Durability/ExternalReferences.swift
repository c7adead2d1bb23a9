import Foundation
import GRDB

/// The file names a store's rows name in its external data folder: every column of a Binary
/// attribute that allows external storage, and the history's tombstone columns (a deleted
/// object's preserved value may be a reference too). Read inside the write transaction that
/// acts on the answer, so that no other writer can name a file in between.
enum ExternalReferences {
    /// The names referenced, or nil when the model has no attribute that stores externally
    /// (then nothing in the folder can be told apart from someone else's file).
    static func names(_ db: Database, store: PersistentStore) throws -> Set<String>? {
        var columns: [(table: String, column: String)] = []
        for entity in store.mapping.entities where entity.entityID != nil && store.schema.table(entity.table) != nil {
            for a in entity.attributes where a.declaredBy == entity.name && a.attribute.allowsExternalBinaryDataStorage {
                if let column = a.column, !columns.contains(where: { $0 == (entity.table, column) }) {
                    columns.append((entity.table, column))
                }
            }
        }
        guard !columns.isEmpty else { return nil }
        if let changes = store.schema.table("ACHANGE") {
            for column in changes.columns.map(\.name) where column.uppercased().hasPrefix("ZTOMBSTONE") {
                columns.append(("ACHANGE", column))
            }
        }
        var names: Set<String> = []
        for (table, column) in columns {
            let value = SQL.identifier(column)
            let sql = "SELECT substr(\(value), 2) FROM \(SQL.identifier(table)) WHERE \(TableCensus.externalReference(value))"
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                guard let bytes: Data = row.lenient(0) else { continue }
                names.insert(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
            }
        }
        return names
    }

    /// Whether `name` has the shape of a file Core Data names: an upper-case UUID.
    static func isReferenceName(_ name: String) -> Bool {
        name.utf8.count == 36 && UUID(uuidString: name) != nil
    }
}

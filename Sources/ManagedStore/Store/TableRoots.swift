import GRDB

/// Each table's b-tree root page, as the schema SQLite reads names it: where the format
/// reader starts to look a row up (`TableBTree`) in the state the connection reads.
enum TableRoots {
    /// By uppercased table name (the first of two names that differ only in case); a root
    /// that is no page number is left out.
    static func read(_ db: Database) throws -> [String: UInt32] {
        Dictionary(try Row.fetchAll(db, sql: "SELECT name, rootpage FROM sqlite_master WHERE type = 'table'").compactMap { row -> (String, UInt32)? in
            guard let name: String = row.lenient("name"), let root: Int64 = row.lenient("rootpage"), root > 0, root <= Int64(UInt32.max) else { return nil }
            return (name.uppercased(), UInt32(root))
        }, uniquingKeysWith: { first, _ in first })
    }
}

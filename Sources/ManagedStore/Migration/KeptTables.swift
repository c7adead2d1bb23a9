import Foundation
import GRDB

/// The tables a migration keeps as the source has them. Core Data (977 and later) migrates a
/// store in place, table by table, as Wire's stores show in the 18 migrations it ran by 977
/// to 1145 (each statement of `migrate`'s equals Core Data's, byte for byte):
///
/// - a table that keeps every column it has (same type; a column renamed, as an entity-key
///   column is when entity numbers move, by `ALTER TABLE … RENAME COLUMN`: 2.101.0's
///   `Z11_QUOTE` became `Z10_QUOTE` where it stood) keeps its `CREATE TABLE`,
///   its columns where they stand, and gets the new model's new columns at the end, by
///   `ALTER TABLE … ADD COLUMN` (2.85.0's `ZCONVERSATION` ends `… ZTEAMREMOTEIDENTIFIER_DATA
///   BLOB , ZDRAFTMESSAGENONCE BLOB)`, SQLite's own rewrite of the statement); so does one whose
///   entities were only renumbered (2.88.0's `ZUSER`);
/// - a table that loses a column is made anew in the new layout's column order, with the
///   layout's indexes only (2.100.0's `ZUSERCLIENT` losing `legacyPushToken`, 2.101.0's
///   `ZFEATURE` losing `needsToBeUpdatedFromBackend`, 2.93.0's `ZFEATURE` losing its to-one
///   `team` and the index `ZFEATURE_ZTEAM_INDEX`).
///
/// Core Data before 977 made more tables anew (Wire's 2.41.0 `ZUSER`, three attributes added,
/// by 847); `migrate` does what today's Core Data does.
enum KeptTables {
    /// Replaces each of `tables` (laid out in `main`) that the source, attached as `src`, has
    /// with every column kept by the source's own statement and the new columns added; returns
    /// the source's tables made anew. A source statement that is not a plain `CREATE TABLE` of
    /// that table (a store is user input) leaves the layout's table, as if made anew.
    static func keep(_ tables: [String], renamedColumns: [String: [String: String]] = [:], db: Database) throws -> Set<String> {
        var rebuilt: Set<String> = []
        for table in tables {
            guard let sql = try sourceStatement(of: table, db)
            else { continue }
            let layout = try columns(of: table, in: "main", db)
            let source = try columns(of: table, in: "src", db)
            let renames = renamedColumns[table] ?? [:]
            let layoutTypes = Dictionary(layout.map { ($0.name.uppercased(), $0.type.uppercased()) }, uniquingKeysWith: { first, _ in first })
            let newName = { (column: String) in renames[column] ?? column }
            guard !source.isEmpty, source.allSatisfy({ layoutTypes[newName($0.name).uppercased()] == $0.type.uppercased() }),
                  isPlainCreateTable(sql, named: table) else {
                rebuilt.insert(table)
                continue
            }
            let sourceNames = Set(source.map { newName($0.name).uppercased() })
            let added = layout.filter { !sourceNames.contains($0.name.uppercased()) }
            // A column renamed stays where it is (Wire 2.101.0: Z11_QUOTE became Z10_QUOTE in
            // place, by framework 1145).
            if !restate(table, from: sql, of: table, renaming: renames, adding: added, like: layout, db: db) { rebuilt.insert(table) }
        }
        return rebuilt
    }

    /// Each join table the migration keeps as it is (its statement as the source has it: Wire's
    /// 2.99.0 keeps 2.88.0's `CREATE TABLE "Z_16ADDEDUSERS"`) or renames (its name, or its
    /// columns' names, moved with the entity numbers), renamed in place from the source's as
    /// Core Data 977 and later does:
    /// `ALTER TABLE … RENAME TO`, which SQLite writes quoted (Wire 2.88.0: `CREATE TABLE
    /// "Z_16ADDEDUSERS" ( Z_16SHOWINGUSERADDED INTEGER, Z_24ADDEDUSERS INTEGER, …`), and
    /// `RENAME COLUMN` (2.88.0's `Z_1ROLE`, its `Z_20ROLE` now `Z_21ROLE`); so is one now
    /// named after the other relationship of its pair (2.96.0's `Z_25TRUSTEDCLIENTS`, renamed
    /// `Z_25TRUSTEDBYCLIENTS` with its columns where they stood). A source statement
    /// that is not a plain `CREATE TABLE`, or an old name the new layout uses for another table,
    /// leaves the layout's table.
    static func renameJoins(_ joins: [MigrationPlan.JoinStep], db: Database) throws {
        for join in joins {
            guard let (oldTable, names) = join.keptFrom,
                  let sql = try sourceStatement(of: oldTable, db),
                  isPlainCreateTable(sql, named: oldTable) else { continue }
            let layout = try columns(of: join.table, in: "main", db)
            let source = try columns(of: oldTable, in: "src", db)
            let oldNameTaken = try oldTable != join.table
                && String.fetchOne(db, sql: "SELECT name FROM main.sqlite_master WHERE name = ? COLLATE NOCASE", arguments: [oldTable]) != nil
            // The columns where they stand, though the layout would order them otherwise: a
            // table now named after the other relationship of its pair keeps them (Wire 2.96.0's
            // `"Z_25TRUSTEDBYCLIENTS" ( Z_25TRUSTEDBYCLIENTS INTEGER, Z_25TRUSTEDCLIENTS …`).
            let layoutTypes = Dictionary(layout.map { ($0.name, $0.type.uppercased()) }, uniquingKeysWith: { first, _ in first })
            guard !oldNameTaken, source.count == layout.count, layoutTypes.count == layout.count,
                  source.allSatisfy({ layoutTypes[names[$0.name] ?? $0.name] == $0.type.uppercased() })
            else { continue }
            _ = restate(join.table, from: sql, of: oldTable, renaming: names, adding: [], like: layout, db: db)
        }
    }

    /// Replaces `table`, as the layout made it in `main`, with the source's own statement `sql`
    /// of `sourceTable`: renamed to `table` (`RENAME TO`, which SQLite writes quoted), its
    /// columns renamed by `renames` where they stand, `added` added at its end. In a savepoint:
    /// when any step fails, or the result does not have the layout's columns, the layout's
    /// table stays and the answer is false.
    private static func restate(_ table: String, from sql: String, of sourceTable: String, renaming renames: [String: String],
                                adding added: [(name: String, type: String)], like layout: [(name: String, type: String)], db: Database) -> Bool {
        var restated = false
        try? db.inSavepoint {
            try db.execute(sql: "DROP TABLE main.\(SQL.identifier(table))")
            try db.makeStatement(sql: sql).execute()
            if sourceTable != table {
                try db.execute(sql: "ALTER TABLE main.\(SQL.identifier(sourceTable)) RENAME TO \(SQL.identifier(table))")
            }
            for column in try columns(of: table, in: "main", db) {
                guard let new = renames[column.name], new != column.name else { continue }
                try db.execute(sql: "ALTER TABLE main.\(SQL.identifier(table)) RENAME COLUMN \(SQL.identifier(column.name)) TO \(SQL.identifier(new))")
            }
            for column in added {
                try db.execute(sql: "ALTER TABLE main.\(SQL.identifier(table)) ADD COLUMN \(SQL.identifier(column.name)) \(column.type)")
            }
            let made = try columns(of: table, in: "main", db)
            restated = Set(made.map { $0.name.uppercased() }) == Set(layout.map { $0.name.uppercased() })
            return restated ? .commit : .rollback
        }
        return restated
    }

    /// The source's `CREATE TABLE` of `table`, as its schema holds it.
    private static func sourceStatement(of table: String, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT sql FROM src.sqlite_master WHERE type = 'table' AND name = ?", arguments: [table])
    }

    private static func columns(of table: String, in schema: String, _ db: Database) throws -> [(name: String, type: String)] {
        try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?, ?) ORDER BY cid", arguments: [table, schema]).map {
            (name: $0["name"] ?? "", type: $0["type"] ?? "")
        }
    }

    /// `CREATE TABLE name (` and nothing else first: not `AS SELECT`, which would run a query,
    /// and not another table's.
    static func isPlainCreateTable(_ sql: String, named table: String) -> Bool {
        var rest = Substring(sql).drop { $0.isWhitespace }
        for word in ["CREATE", "TABLE"] {
            guard rest.prefix(word.count).uppercased() == word else { return false }
            rest = rest.dropFirst(word.count).drop { $0.isWhitespace }
        }
        for word in ["IF", "NOT", "EXISTS"] {
            guard rest.prefix(word.count).uppercased() == word, rest.dropFirst(word.count).first?.isWhitespace == true else { break }
            rest = rest.dropFirst(word.count).drop { $0.isWhitespace }
        }
        guard let open = rest.firstIndex(of: "(") else { return false }
        let name = rest[..<open].trimmingCharacters(in: .whitespaces)
        return IndexShape.unquoted(Substring(name)).uppercased() == table.uppercased()
    }
}

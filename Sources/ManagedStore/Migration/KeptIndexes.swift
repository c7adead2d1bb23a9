import GRDB

/// The indexes a migrated store keeps from its source. Core Data migrates a store in place, and
/// an index the new model still wants stays as the store has it, under its old name and SQL:
/// Wire's stores (framework 847 to 1145) keep `ZUSER_ZNORMALIZEDNAME_INDEX ON ZUSER
/// (ZNORMALIZEDNAME)`, the name Core Data gave `indexed="YES"` before 847, through every later
/// migration, where a new store of the same model has `Z_User_normalizedName`; over the series,
/// a table kept its index names in 1,224 of the 1,269 (table, migration) pairs run by framework 847 or later. So a layout's
/// index that the source has on the same table over the same columns, under another name, is
/// written as the source's. A store written before fetch indexes (framework 847) keeps its
/// old indexes and gains the layout's beside them: Wire's 2.39.0 store, migrated by 847 from
/// 2.31.0's (754), has both `ZUSER_ZNORMALIZEDNAME_INDEX` and `Z_User_normalizedName`.
enum KeptIndexes {
    /// The framework that made fetch indexes of the older index forms.
    static let fetchIndexFramework: Int64 = 847

    /// `statements` (the layout's `CREATE [UNIQUE] INDEX`es, and its triggers, untouched) with
    /// each index the source (attached as `src`) has under another name replaced by the
    /// source's own statement, or, for a source from before 847, written beside it; then the
    /// indexes of the join tables the migration keeps or renames (`ofKeptJoinTables`). A table the
    /// migration made anew (`KeptTables`) has the layout's indexes only: Wire's 2.100.0
    /// `ZUSERCLIENT`, 2.93.0's `ZFEATURE` without `ZFEATURE_ZTEAM_INDEX`.
    static func statements(_ statements: [String], joins: [MigrationPlan.JoinStep], rebuiltTables: Set<String> = [], db: Database,
                           sourceFrameworkVersion: Int64?) throws -> [String] {
        var source: [IndexShape] = []
        for row in try Row.fetchAll(db, sql: "SELECT sql FROM src.sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name") {
            if let sql: String = row["sql"], let shape = IndexShape(sql) { source.append(shape) }
        }
        let kept = keeping(statements, source: source.filter { !rebuiltTables.contains($0.table) }, sourceFrameworkVersion: sourceFrameworkVersion)
        // A kept join table's index stands as the source has it, where the layout would make
        // one of the same name: Wire's 2.101.0 has `Z_15ADDEDUSERS_Z_23ADDEDUSERS_INDEX ON
        // "Z_15ADDEDUSERS"`, the source's index of that (stale) name, renamed with its table.
        let fromJoins = ofKeptJoinTables(joins, source: source)
        let taken = Set(fromJoins.compactMap { IndexShape($0)?.name })
        return kept.filter { IndexShape($0).map { !taken.contains($0.name) } ?? true } + fromJoins
    }

    private static func keeping(_ statements: [String], source: [IndexShape], sourceFrameworkVersion: Int64?) -> [String] {
        let beside = (sourceFrameworkVersion ?? fetchIndexFramework) < fetchIndexFramework
        let wanted = Set(statements.compactMap { IndexShape($0)?.name })
        var taken: Set<String> = []
        return statements.flatMap { statement -> [String] in
            guard let shape = IndexShape(statement) else { return [statement] }
            // Every index the source has over the same columns under another name stays:
            // Wire's 2.91.0 store keeps `ZADDRESSBOOKENTRY_ZLOCALIDENTIFIER_INDEX` beside
            // `Z_AddressBookEntry_localIdentifier`, and two stale names of one join table's index.
            let kept = source.filter { $0.table == shape.table && $0.unique == shape.unique && $0.columns == shape.columns
                                       && !wanted.contains($0.name) && !taken.contains($0.name) }
            taken.formUnion(kept.map(\.name))
            if kept.isEmpty || beside || source.contains(where: { $0.name == shape.name }) { return kept.map(\.sql) + [statement] }
            return kept.map(\.sql)
        }
    }
}

extension KeptIndexes {
    /// The indexes of the source's join tables that the migration keeps as they are or renames
    /// (of `joins`, those `unchanged` or with `renamedFrom`): Core Data 977 and later leaves
    /// every index of a table it keeps, stale names too (Wire's 2.98.0 keeps 2.96.0's
    /// `Z_23TRUSTEDCLIENTS_Z_23TRUSTEDCLIENTS_INDEX ON "Z_25TRUSTEDBYCLIENTS"`, named when
    /// UserClient was entity 23 and the table named after the other side), and renames
    /// such a table in place (`ALTER TABLE … RENAME`, its columns too), so its indexes stay
    /// under their names, on the new table name (quoted, as SQLite rewrites it) and columns:
    /// Wire's 2.88.0 store has `Z_14ADDEDUSERS_Z_22ADDEDUSERS_INDEX ON "Z_16ADDEDUSERS"
    /// (Z_24ADDEDUSERS, Z_16SHOWINGUSERADDED)`, kept from 2.87.0's `Z_15ADDEDUSERS`, beside the
    /// layout's own `Z_16ADDEDUSERS_Z_24ADDEDUSERS_INDEX`; its `Z_1ROLE`, whose columns moved
    /// from 20 to 21 under the same name, keeps `Z_1ROLE_Z_20ROLE_INDEX ON Z_1ROLE (Z_21ROLE,
    /// Z_1ACTIONS)`. Core Data before framework 977 made such a table anew (Wire's 2.80.0).
    private static func ofKeptJoinTables(_ joins: [MigrationPlan.JoinStep], source: [IndexShape]) -> [String] {
        var names: Set<String> = []
        var made: [String] = []
        for join in joins {
            guard let (oldTable, columns) = join.keptFrom else { continue }
            for shape in source where shape.table == oldTable && !shape.unique {
                if join.renamedFrom == nil {
                    // Kept as it is, so are its indexes, as the source has them.
                    if names.insert(shape.name).inserted { made.append(shape.sql) }
                    continue
                }
                let renamed = shape.columns.compactMap { columns[$0] }
                guard renamed.count == shape.columns.count, names.insert(shape.name).inserted else { continue }
                // SQLite quotes a table's new name where `RENAME TO` rewrote it, and writes a
                // renamed column as it was given.
                let table = oldTable == join.table ? SQL.identifier(join.table) : "\"\(join.table)\""
                made.append("CREATE INDEX \(SQL.identifier(shape.name)) ON \(table) (\(renamed.joined(separator: ", ")))")
            }
        }
        return made
    }
}

/// An index's statement read for what it indexes: its name, table, uniqueness and columns
/// (unquoted, upper-case, without the default `COLLATE BINARY` and `ASC`).
struct IndexShape {
    let sql: String
    let name: String
    let table: String
    let unique: Bool
    let columns: [String]

    init?(_ sql: String) {
        let words = sql.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard words.count >= 5, words[0].uppercased() == "CREATE" else { return nil }
        var i = 1
        unique = words[i].uppercased() == "UNIQUE"
        if unique { i += 1 }
        guard i + 2 < words.count, words[i].uppercased() == "INDEX", words[i + 2].uppercased() == "ON" else { return nil }
        guard let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")"), open < close else { return nil }
        let head = sql[..<open].split(separator: " ")
        guard let tableWord = head.last else { return nil }
        self.sql = sql
        name = Self.unquoted(words[i + 1])
        table = Self.unquoted(tableWord)
        columns = sql[sql.index(after: open)..<close].split(separator: ",").map { column in
            column.split(separator: " ").map { Self.unquoted($0).uppercased() }
                .filter { $0 != "COLLATE" && $0 != "BINARY" && $0 != "ASC" }.joined(separator: " ")
        }
    }

    static func unquoted(_ word: Substring) -> String {
        var text = String(word)
        if text.count >= 2, let first = text.first, first == "\"" || first == "`" || first == "[", let last = text.last,
           last == "\"" || last == "`" || last == "]" {
            text = String(text.dropFirst().dropLast())
        }
        return text
    }
}

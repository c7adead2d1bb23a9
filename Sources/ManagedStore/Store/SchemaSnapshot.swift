import GRDB

/// The store's tables and columns as SQLite reports them (`PRAGMA table_info`), read once at
/// open. Mapping verifies every predicted column against this, never against CREATE text,
/// which migrations leave quoted and stale.
public struct SchemaSnapshot: Sendable {
    public struct Column: Sendable, Equatable {
        public let name: String
        public let declaredType: String
        public let notNull: Bool
        public let primaryKeyIndex: Int
    }

    public struct ForeignKey: Sendable, Equatable {
        public let column: String
        public let table: String
        public let toColumn: String?
    }

    public struct Table: Sendable {
        public let name: String
        public let columns: [Column]
        public let foreignKeys: [ForeignKey]
        public let isVirtual: Bool
        /// Column positions by name and by ASCII-lowercased name (the first of each): mapping
        /// a store looks up every column of every entity, and a scan each time was quadratic
        /// on tables of hundreds of columns (FuzzWholeStore).
        private let exactIndex: [String: Int]
        private let foldedIndex: [String: Int]

        public init(name: String, columns: [Column], foreignKeys: [ForeignKey], isVirtual: Bool) {
            self.name = name
            self.columns = columns
            self.foreignKeys = foreignKeys
            self.isVirtual = isVirtual
            var exact: [String: Int] = [:], folded: [String: Int] = [:]
            for (i, column) in columns.enumerated() {
                if exact[column.name] == nil { exact[column.name] = i }
                let key = SchemaSnapshot.asciiLowercased(column.name)
                if folded[key] == nil { folded[key] = i }
            }
            exactIndex = exact
            foldedIndex = folded
        }

        public func column(_ name: String) -> Column? {
            (exactIndex[name] ?? foldedIndex[SchemaSnapshot.asciiLowercased(name)]).map { columns[$0] }
        }

        public func hasColumn(_ name: String) -> Bool { column(name) != nil }

        /// The column that is the rowid's alias: the table's one primary-key column, declared
        /// `INTEGER` (sqlite.org/lang_createtable.html, "ROWID and the INTEGER PRIMARY KEY").
        public var rowidAlias: Column? {
            let keys = columns.filter { $0.primaryKeyIndex > 0 }
            return keys.count == 1 && keys[0].declaredType.uppercased() == "INTEGER" ? keys[0] : nil
        }

        /// `alias.NAME`, or `NULL` where a store lacks the column: for reading tables whose
        /// columns vary between OS versions without failing on the ones a store does not have.
        func select(_ name: String, _ alias: String) -> String {
            hasColumn(name) ? "\(alias).\(name)" : "NULL"
        }
    }

    public struct PrimaryKeyRow: Sendable, Equatable {
        public let entityID: Int
        public let name: String
        public let superID: Int
        public let max: Int
    }

    public let tables: [Table]
    public let indexNames: Set<String>
    /// `Z_PRIMARYKEY` rows, empty for a store that is not Core Data's.
    public let primaryKeys: [PrimaryKeyRow]

    public func table(_ name: String) -> Table? {
        tables.first { $0.name == name } ?? tables.first { SchemaSnapshot.sameName($0.name, name) }
    }

    /// Whether SQLite takes two names for the same table or column: it ignores the case of
    /// ASCII letters only (`sqlite3StrICmp`). Foundation's `caseInsensitiveCompare` would
    /// also fold other letters, and on Linux costs more per call than a lookup should.
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
    }

    /// `name` with A–Z lowered, as `sameName` compares.
    static func asciiLowercased(_ name: String) -> String {
        String(decoding: name.utf8.map(asciiLowercase), as: UTF8.self)
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// `Z_PRIMARYKEY` with its entity columns is what makes the tables Core Data's; a store
    /// that lost `Z_METADATA` (hand-edited, half-copied) still has Core Data's rows.
    public var isCoreDataStore: Bool {
        guard let keys = table("Z_PRIMARYKEY") else { return false }
        let columns = Set(keys.columns.map { $0.name.uppercased() })
        return columns.isSuperset(of: ["Z_ENT", "Z_NAME"])
    }

    /// True when persistent history tracking has written its tables.
    public var hasPersistentHistory: Bool {
        table("ATRANSACTION") != nil && table("ACHANGE") != nil
    }

    public static func read(_ db: Database) throws -> SchemaSnapshot {
        var tables: [Table] = []
        let rows = try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name")
        // Every table's columns, and every table's foreign keys, each in one statement: the
        // PRAGMAs' table-valued forms joined to sqlite_master. A statement per table cost
        // more than the rest of opening a small store, and a store of Photos has over a
        // hundred tables. Each table's rows come in the PRAGMA's own order. Each statement is
        // one line, as the SQL debug log shows every statement, as Core Data's does. Virtual
        // tables have no foreign keys; the query leaves them out, so their module is never asked.
        let columns = try rowsByTable(db, sql: "SELECT m.name, p.name, p.type, p.\"notnull\", p.pk "
                                          + "FROM sqlite_master AS m, pragma_table_info(m.name) AS p WHERE m.type = 'table'") { row in
            Column(name: row.lenient(1) ?? "", declaredType: row.lenient(2) ?? "",
                   notNull: row.lenient(3) ?? false, primaryKeyIndex: row.lenient(4) ?? 0)
        }
        let foreignKeys = try rowsByTable(db, sql: "SELECT m.name, f.\"from\", f.\"table\", f.\"to\" "
                                              + "FROM sqlite_master AS m, pragma_foreign_key_list(m.name) AS f "
                                              + "WHERE m.type = 'table' AND ifnull(m.sql, '') NOT LIKE 'CREATE VIRTUAL TABLE%'") { row in
            ForeignKey(column: row.lenient(1) ?? "", table: row.lenient(2) ?? "", toColumn: row.lenient(3))
        }
        var indexNames: Set<String> = []
        for row in rows {
            guard let type = row.lenient("type", as: String.self), let name = row.lenient("name", as: String.self) else { continue }
            if type == "index" { indexNames.insert(name); continue }
            if name.hasPrefix("sqlite_") { continue }
            let sql = row.lenient("sql", as: String.self) ?? ""
            let isVirtual = sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE")
            tables.append(Table(name: name, columns: columns[name] ?? [], foreignKeys: foreignKeys[name] ?? [], isVirtual: isVirtual))
        }
        var primaryKeys: [PrimaryKeyRow] = []
        if let pk = tables.first(where: { $0.name == "Z_PRIMARYKEY" }),
           ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"].allSatisfy(pk.hasColumn) {
            primaryKeys = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT").map {
                PrimaryKeyRow(entityID: $0.lenient("Z_ENT") ?? 0, name: $0.lenient("Z_NAME") ?? "",
                              superID: $0.lenient("Z_SUPER") ?? 0, max: $0.lenient("Z_MAX") ?? 0)
            }
        }
        return SchemaSnapshot(tables: tables, indexNames: indexNames, primaryKeys: primaryKeys)
    }

    /// Every index of the store (its own, and SQLite's for UNIQUE and PRIMARY KEY) with its
    /// table and its columns in order, as the store has them now.
    static func indexes(_ db: Database) throws -> [(table: String, columns: [String])] {
        try Row.fetchAll(db, sql: "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'").map { row in
            let name: String = row[0] ?? "", table: String = row[1] ?? ""
            let columns = try Row.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [name]).compactMap { $0[0] as String? }
            return (table, columns)
        }
    }

    /// The rows of a query whose first column names a table, made into values and grouped
    /// by that table, in the order the query returned them.
    private static func rowsByTable<Value>(_ db: Database, sql: String,
                                           _ make: (Row) -> Value) throws -> [String: [Value]] {
        var grouped: [String: [Value]] = [:]
        let cursor = try Row.fetchCursor(db, sql: sql)
        while let row = try cursor.next() {
            guard let table = row.lenient(0, as: String.self) else { continue }
            grouped[table, default: []].append(make(row))
        }
        return grouped
    }
}

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

        public func column(_ name: String) -> Column? {
            columns.first { $0.name == name } ?? columns.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        }

        public func hasColumn(_ name: String) -> Bool { column(name) != nil }

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
        tables.first { $0.name == name } ?? tables.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
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
        var indexNames: Set<String> = []
        for row in rows {
            guard let type = row.lenient("type", as: String.self), let name = row.lenient("name", as: String.self) else { continue }
            if type == "index" { indexNames.insert(name); continue }
            if name.hasPrefix("sqlite_") { continue }
            let sql = row.lenient("sql", as: String.self) ?? ""
            let isVirtual = sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE")
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted))").map {
                Column(name: $0.lenient("name") ?? "", declaredType: $0.lenient("type") ?? "",
                       notNull: $0.lenient("notnull") ?? false, primaryKeyIndex: $0.lenient("pk") ?? 0)
            }
            let foreignKeys = isVirtual ? [] : try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(quoted))").map {
                ForeignKey(column: $0.lenient("from") ?? "", table: $0.lenient("table") ?? "", toColumn: $0.lenient("to"))
            }
            tables.append(Table(name: name, columns: columns, foreignKeys: foreignKeys, isVirtual: isVirtual))
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
}

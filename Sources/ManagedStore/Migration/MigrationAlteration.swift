import GRDB

/// A migration that only adds to the store: new columns (with their defaults), new indexes,
/// the new model's metadata, over the same entities, numbers, tables and keys. Carried out on
/// a page-for-page copy of the store by `ALTER TABLE … ADD COLUMN` and `UPDATE`, as Core
/// Data's own in-place migration alters tables (Photos' stores show columns renamed and added
/// in place), instead of copying every row of every table into a new layout: one added
/// attribute on a million rows touches one table, not all of them (Benchmarks/migrate.sh).
///
/// The result is the copy path's, row for row and statement for statement: there too a kept
/// table gets its new columns at its end (`KeptTables`), as Core Data's own migration does.
struct MigrationAlteration: Sendable {
    struct AddedColumn: Sendable {
        let table: String
        let column: String
        let declaredType: String
    }

    struct Update: Sendable {
        let sql: String
        let arguments: [DatabaseValue]
    }

    let added: [AddedColumn]
    let updates: [Update]
    /// CREATE statements of the new model's indexes the store lacks.
    let indexes: [String]

    /// The statements, in the destination's one transaction on the copy.
    func apply(_ db: Database) throws {
        for a in added {
            try db.execute(sql: "ALTER TABLE \(SQL.identifier(a.table)) ADD COLUMN \(SQL.identifier(a.column)) \(a.declaredType)")
        }
        for u in updates {
            try Cancellation.check()
            try db.execute(sql: u.sql, arguments: StatementArguments(u.arguments))
        }
        for statement in indexes { try db.execute(sql: statement) }
    }
}

extension MigrationPlan.Builder {
    /// The alteration that migrates the store, or nil when the migration does more than add
    /// (a rename, a drop, a new entity, new numbers, a key or position computed anew).
    func alteration(_ steps: [MigrationPlan.EntityStep], _ joins: [MigrationPlan.JoinStep], _ losses: [MigrationPlan.Loss],
                    numbers: [Int: Int], keptNames: [Int: String]) throws -> MigrationAlteration? {
        guard losses.isEmpty, keptNames.isEmpty, numbers.allSatisfy({ $0.key == $0.value }),
              Set(layout.entities.map(\.name)) == Set(old.entities.map(\.name)),
              store.schema.table("Z_MODELCACHE") != nil, joins.allSatisfy(\.unchanged) else { return nil }
        let bookkeeping: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
        // The same tables; each source column kept with its type, the new ones added.
        var added: [MigrationAlteration.AddedColumn] = []
        for table in destination.schema.tables where !bookkeeping.contains(table.name) {
            guard let source = store.schema.tables.first(where: { $0.name == table.name }) else { return nil }
            for column in source.columns {
                guard table.column(column.name)?.declaredType.uppercased() == column.declaredType.uppercased() else { return nil }
            }
            added += table.columns.filter { !source.hasColumn($0.name) }
                .map { MigrationAlteration.AddedColumn(table: table.name, column: $0.name, declaredType: $0.declaredType) }
        }
        for table in store.schema.tables where table.name.hasPrefix("Z") && !bookkeeping.contains(table.name) {
            guard destination.schema.tables.contains(where: { $0.name == table.name }) else { return nil }
        }
        let isAdded = { (table: String, column: String) in added.contains { $0.table == table && $0.column == column } }
        // Each row as it is, but for the values of the added columns and defaults for NULLs.
        var updates: [MigrationAlteration.Update] = []
        for step in steps {
            guard let sourceTable = step.sourceTable, let id = step.sourceID else { continue }
            guard sourceTable == step.table else { return nil }
            let rows = step.sourceHasEntityColumn ? " WHERE Z_ENT = \(id)" : ""
            var set: [MigrationPlan.ColumnFill] = []
            for fill in step.fills {
                switch fill.carry {
                case .column(let c) where c == fill.column, .renumbered(let c) where c == fill.column:
                    continue
                case .columnOrDefault(let c) where c == fill.column:
                    let column = SQL.identifier(c)
                    updates.append(.init(sql: "UPDATE \(SQL.identifier(step.table)) SET \(column) = ?" + (rows.isEmpty ? " WHERE" : rows + " AND")
                                         + " \(column) IS NULL", arguments: fill.arguments))
                case .constant where isAdded(step.table, fill.column):
                    if fill.expression != "NULL" { set.append(fill) }
                default:
                    return nil
                }
            }
            if !set.isEmpty {
                updates.append(.init(sql: "UPDATE \(SQL.identifier(step.table)) SET "
                                     + set.map { "\(SQL.identifier($0.column)) = \($0.expression)" }.joined(separator: ", ") + rows,
                                     arguments: set.flatMap(\.arguments)))
            }
        }
        // The same triggers; the source's indexes all kept as they are, the new ones made.
        let sourceIndexes = try StoreCreator.Layout.statements(db, type: "index")
        let sourceTriggers = try StoreCreator.Layout.statements(db, type: "trigger")
        guard destination.triggers == sourceTriggers else { return nil }
        let historyIndexes = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('ACHANGE', 'ATRANSACTION', 'ATRANSACTIONSTRING')"))
        for (name, sql) in sourceIndexes where !historyIndexes.contains(name) {
            guard destination.indexes[name] == sql else { return nil }
        }
        let indexes = destination.indexes.filter { sourceIndexes[$0.key] == nil }.sorted { $0.key < $1.key }.map(\.value)
        return MigrationAlteration(added: added, updates: updates, indexes: indexes)
    }
}

import GRDB

/// One pass over each entity table that `doctor` needs from its rows: per stored attribute,
/// the NULLs where the model requires a value, the values of another storage class or out
/// of range, and the total and largest size of text and data. A 1 GB store is read once
/// for all of them, not once per attribute; the few queries that find example objects run
/// only for what the pass found.
struct TableCensus {
    struct Column {
        let entity: EntityMapping
        let attribute: AttributeDescription
        let column: String
        var nulls: Int64 = 0
        var misfits: Int64 = 0
        var total: Int64 = 0
        var largest: Int64 = 0
        /// Values naming a file in the external data folder (binary attributes that allow
        /// external storage).
        var externalReferences: Int64 = 0
    }

    struct Table {
        let table: String
        let entities: [EntityMapping]
        var rows: Int64?
        /// Rows whose `Z_ENT` no entity of the table has.
        var strangers: Int64 = 0
        /// Rows of each entity of its own (not counting sub-entities), by name.
        var rowsByEntity: [String: Int64] = [:]
        var columns: [Column]
    }

    /// Per table, its columns with what the pass counted.
    var tables: [Table] = []

    init() {}

    init(store: PersistentStore, _ db: Database, progress: (String) -> Void) throws {
        // The census's own SQL function, on the connection it runs on: no other reader needs it.
        CensusFunction.register(db)
        var byTable: [String: [EntityMapping]] = [:]
        for entity in store.mapping.entities where entity.entityID != nil && store.schema.table(entity.table) != nil {
            byTable[entity.table, default: []].append(entity)
        }
        for (table, entities) in byTable.sorted(by: { $0.key < $1.key }) {
            try Cancellation.check()
            progress("reading \(table)")
            var columns: [Column] = []
            for entity in entities {
                for a in entity.attributes where a.declaredBy == entity.name && !a.attribute.isTransient {
                    guard let column = a.column else { continue }
                    columns.append(Column(entity: entity, attribute: a.attribute, column: column))
                }
            }
            let known = entities.compactMap(\.entityID).map(String.init).joined(separator: ", ")
            var expressions = ["count(*)", store.schema.table(table)?.hasColumn("Z_ENT") == true ? "total(x.Z_ENT IS NULL OR x.Z_ENT NOT IN (\(known)))" : "0"]
            // Type misfits of every column at once, in one function call a row (a few for a
            // table wider than SQLite lets a function take arguments: Notes'
            // ZICCLOUDSYNCINGOBJECT has 213 columns, and the limit is 127); which column is
            // asked only when some row has one (see `misfitsByColumn`).
            var calls: [(spec: String, values: [String])] = []
            for c in columns {
                guard let (letter, typeOnly) = CensusFunction.letter(c.attribute.type) else { continue }
                let value = "x.\(SQL.identifier(c.column))"
                if calls.isEmpty || calls[calls.count - 1].values.count == Self.argumentsPerCall { calls.append(("", [])) }
                calls[calls.count - 1].spec.append(letter)
                calls[calls.count - 1].values.append(typeOnly ? "typeof(\(value))" : value)
            }
            expressions.append(calls.isEmpty ? "0" : "total((" + calls.map { "cdi_misfits('\($0.spec)', \($0.values.joined(separator: ", ")))" }
                .joined(separator: " + ") + ") > 0)")
            // Rows per entity where entities share the table (one entity's are all rows).
            let shared = entities.count > 1 ? entities.filter { !$0.isAbstract && $0.entityID != nil } : []
            for entity in shared { expressions.append("total(x.Z_ENT = \(entity.entityID ?? -1))") }
            for c in columns {
                let mine = Self.belongs(c.entity, in: entities)
                let value = "x.\(SQL.identifier(c.column))"
                if c.attribute.isOptional {
                    expressions.append("0")
                } else {
                    // count(x) counts values without a function call a row.
                    expressions.append(mine.isEmpty ? "count(*) - count(\(value))" : "total(\(value) IS NULL\(mine))")
                }
                let sized = StoreSpace.isSized(c.attribute.type)
                expressions.append(sized ? "total(length(\(value)))" : "0")
                expressions.append(sized ? "max(length(\(value)))" : "0")
                expressions.append(c.attribute.allowsExternalBinaryDataStorage ? "total(\(Self.externalReference(value)))" : "0")
            }
            // A damaged table is left uncounted; quick_check says what is wrong with it.
            var counted = Table(table: table, entities: entities, rows: nil, columns: columns)
            if let row = try? Row.fetchOne(db, sql: "SELECT " + expressions.joined(separator: ", ") + " FROM \(SQL.identifier(table)) x") {
                counted.rows = row.lenient(0)
                counted.strangers = Int64(row.lenient(1, as: Double.self) ?? 0)
                let misfitRows = Int64(row.lenient(2, as: Double.self) ?? 0)
                for (i, entity) in shared.enumerated() { counted.rowsByEntity[entity.name] = Int64(row.lenient(3 + i, as: Double.self) ?? 0) }
                if shared.isEmpty, let only = entities.first { counted.rowsByEntity[only.name] = counted.rows }
                for i in columns.indices {
                    let base = 3 + shared.count + 4 * i
                    counted.columns[i].nulls = Int64(row.lenient(base, as: Double.self) ?? 0)
                    counted.columns[i].total = Int64(row.lenient(base + 1, as: Double.self) ?? 0)
                    counted.columns[i].largest = row.lenient(base + 2, as: Int64.self) ?? 0
                    counted.columns[i].externalReferences = Int64(row.lenient(base + 3, as: Double.self) ?? 0)
                }
                if misfitRows > 0 { try Self.misfitsByColumn(&counted, db) }
            }
            tables.append(counted)
        }
    }

    /// Values per `cdi_misfits` call: below SQLite's default limit on a function's arguments
    /// (`SQLITE_MAX_FUNCTION_ARG`, 127), less the spec.
    static let argumentsPerCall = 100

    /// A value of a binary attribute that names an external file: tag byte 2 and a UUID.
    /// The length is tested first, so that large inline values are never read.
    static func externalReference(_ value: String) -> String {
        "(typeof(\(value)) = 'blob' AND length(\(value)) <= 64 AND substr(\(value), 1, 1) = x'02')"
    }

    /// The columns some row's value misfits: a second pass, made only when the first found any.
    private static func misfitsByColumn(_ table: inout Table, _ db: Database) throws {
        var expressions: [String] = []
        for c in table.columns {
            let condition = misfit(c.attribute.type, "x.\(SQL.identifier(c.column))")
            expressions.append(condition.map { "total((\($0))\(belongs(c.entity, in: table.entities)))" } ?? "0")
        }
        guard let row = try Row.fetchOne(db, sql: "SELECT " + expressions.joined(separator: ", ") + " FROM \(SQL.identifier(table.table)) x") else { return }
        for i in table.columns.indices { table.columns[i].misfits = Int64(row.lenient(i, as: Double.self) ?? 0) }
    }

    /// ` AND x.Z_ENT IN (…)` when other entities share the table, else nothing.
    static func belongs(_ entity: EntityMapping, in entities: [EntityMapping]) -> String {
        entities.count == 1 ? "" : " AND x.Z_ENT IN (\(entity.entityIDs.map(String.init).joined(separator: ", ")))"
    }

    /// The condition a value breaks its type by, as Core Data stores it: another storage
    /// class, or an integer out of the attribute's range.
    static func misfit(_ type: AttributeType, _ value: String) -> String? {
        guard let classes = StoreHealth.storageClasses(type) else { return nil }
        let allowed = (classes + ["null"]).map { "'\($0)'" }.joined(separator: ", ")
        var condition = "typeof(\(value)) NOT IN (\(allowed))"
        if type == .integer16 { condition += " OR (typeof(\(value)) = 'integer' AND \(value) NOT BETWEEN -32768 AND 32767)" }
        if type == .integer32 { condition += " OR (typeof(\(value)) = 'integer' AND \(value) NOT BETWEEN -2147483648 AND 2147483647)" }
        return condition
    }
}

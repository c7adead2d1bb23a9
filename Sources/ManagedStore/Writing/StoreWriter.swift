import Foundation
import GRDB
import GRDBSQLite

/// The SQL of a save, inside the coordinator's exclusive transaction, in Core Data's
/// statement shapes: `INSERT INTO T(Z_PK, Z_ENT, Z_OPT, …)`, `UPDATE OR FAIL T SET …,
/// Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?`, `DELETE FROM T WHERE Z_PK = ? AND Z_OPT = ?`,
/// and keys from `Z_PRIMARYKEY`. Values are bound through the C API with their length,
/// so text with a NUL byte is written whole.
struct StoreWriter {
    let db: Database
    let mapping: StoreMapping
    /// Where a save's externally stored values go (nil for writes that store none: batch
    /// requests write past them, as Core Data's do).
    var external: ExternalDataFiles? = nil
    /// Permanent keys of objects inserted by this save, by their temporary IDs.
    var keys: [ObjectID: ObjectID] = [:]

    @discardableResult
    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws -> Int {
        let statement = try db.makeStatement(sql: sql)
        let columns = ColumnReader(statement.sqliteStatement)
        try columns.bind(arguments, db)
        while try columns.step(db) {}
        return Int(sqlite3_changes(db.sqliteConnection))
    }

    /// Hands out primary keys for new objects of one table from its root entity's `Z_MAX`.
    mutating func allocateKeys(_ objects: [ManagedObject], storeUUID: String) throws {
        let byTable = Dictionary(grouping: objects) { $0.entity.table }
        for (table, group) in byTable.sorted(by: { $0.key < $1.key }) {
            let root = mapping.rootEntity(of: group[0].entity)
            guard let rootID = root.entityID else {
                throw StoreError.sqlite("no Z_PRIMARYKEY row for the table \(table)")
            }
            let max = try Self.keyCounter(of: root, db)
            let (newMax, overflow) = max.addingReportingOverflow(Int64(group.count))
            guard !overflow else {
                throw StoreError.primaryKeyCounterDamaged(entity: root.name, stored: String(max),
                                                          problem: "too close to the largest 64-bit integer for \(group.count) more")
            }
            try db.execute(sql: "UPDATE OR FAIL Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX = ?",
                           arguments: [newMax, rootID, max])
            for (i, object) in group.sorted(by: { $0.objectID.primaryKey > $1.objectID.primaryKey }).enumerated() {
                keys[object.objectID] = ObjectID(storeUUID: storeUUID, entityName: object.entity.name, primaryKey: max + 1 + Int64(i))
            }
        }
    }

    /// A root entity's `Z_MAX`: the last key handed out (0 when unset). Refused when it is no
    /// integer (read as 0, it would hand out keys rows already have) or negative (a negative
    /// key reads as a temporary ID).
    static func keyCounter(of root: EntityMapping, _ db: Database) throws -> Int64 {
        guard let rootID = root.entityID else { return 0 }
        let stored = try DatabaseValue.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [rootID]) ?? .null
        switch stored.storage {
        case .null:
            return 0
        case .int64(let value):
            guard value >= 0 else {
                throw StoreError.primaryKeyCounterDamaged(entity: root.name, stored: stored.description, problem: "a negative number")
            }
            return value
        default:
            throw StoreError.primaryKeyCounterDamaged(entity: root.name, stored: stored.description, problem: "not an integer")
        }
    }

    func permanent(_ id: ObjectID) -> ObjectID { keys[id] ?? id }

    /// The columns of an object's row for the given keys (attributes and to-one keys). A value
    /// larger than Core Data keeps in the column, of an attribute that allows external
    /// storage, goes to its file (`ExternalDataFiles`); a value read from a file and not
    /// changed keeps its reference.
    func rowColumns(_ object: ManagedObject, _ values: [String: ObjectValue], keys: [String]) throws -> [(String, DatabaseValue)] {
        var columns: [(String, DatabaseValue)] = []
        for key in keys {
            if let a = object.entity.attribute(key), let column = a.column {
                if let external, a.attribute.allowsExternalBinaryDataStorage, case .attribute(.data(let bytes))? = values[key] {
                    columns.append((column, Data(try external.stored(bytes)).databaseValue))
                    continue
                }
                guard let stored = StoreWriter.encode(values[key] ?? .null, a.attribute) else { continue }
                columns.append((column, stored))
            } else if let r = object.entity.relationship(key), case .foreignKey(let column, let entityColumn) = r.storage {
                let destination: ObjectID?
                if case .toOne(let id)? = values[key] { destination = id.map(permanent) } else { destination = nil }
                columns.append((column, destination.map { $0.primaryKey.databaseValue } ?? .null))
                if let entityColumn {
                    let entityID = destination.flatMap { mapping.entity(named: $0.entityName)?.entityID }
                    columns.append((entityColumn, entityID.map { Int64($0).databaseValue } ?? .null))
                }
            }
        }
        return columns
    }

    /// Keys stored in the object's own row: attributes with a column and to-one keys.
    static func rowKeys(_ entity: EntityMapping) -> [String] {
        entity.attributes.filter { $0.column != nil && !$0.attribute.isDerived }.map(\.attribute.name)
            + entity.relationships.filter { if case .foreignKey = $0.storage { return true } else { return false } }.map(\.relationship.name)
    }

    func insert(_ object: ManagedObject) throws {
        let id = permanent(object.objectID)
        let columns = try rowColumns(object, object.values, keys: StoreWriter.rowKeys(object.entity))
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.0)
        let values = [id.primaryKey.databaseValue, Int64(object.entity.entityID ?? 0).databaseValue, Int64(1).databaseValue] + columns.map(\.1)
        try execute("INSERT INTO \(SQL.identifier(object.entity.table))(\(names.map(SQL.identifier).joined(separator: ", "))) "
                    + "VALUES(\(names.map { _ in "?" }.joined(separator: ", ")))", values)
    }

    /// Writes `keys` and the new version; false when the row's version was not `expected`.
    /// `stored`: the row's values before the write, whose external files the new values replace.
    func update(_ object: ManagedObject, _ values: [String: ObjectValue], keys: [String], expected: Int64, version: Int64,
                stored: [String: ObjectValue]) throws -> Bool {
        let columns = try rowColumns(object, values, keys: keys)
        releaseFiles(of: stored, replacedBy: values, keys: keys, in: object.entity)
        let sets = columns.map { "\(SQL.identifier($0.0)) = ?" } + ["Z_OPT = ?"]
        let changes = try execute("UPDATE OR FAIL \(SQL.identifier(object.entity.table)) SET \(sets.joined(separator: ", ")) "
                                  + "WHERE Z_PK = ? AND Z_OPT = ?",
                                  columns.map(\.1) + [version.databaseValue, object.objectID.primaryKey.databaseValue, expected.databaseValue])
        return changes == 1
    }

    /// `stored`: the row's values, whose external files go with it.
    func delete(_ object: ManagedObject, expected: Int64, stored: [String: ObjectValue]) throws {
        releaseFiles(of: stored, replacedBy: [:], keys: Array(stored.keys), in: object.entity)
        let pk = object.objectID.primaryKey
        try execute("DELETE FROM \(SQL.identifier(object.entity.table)) WHERE Z_PK = ? AND Z_OPT = ?", [pk.databaseValue, expected.databaseValue])
        for r in object.entity.relationships {
            switch r.storage {
            case .joinTable(let table, let source, _, _):
                try execute("DELETE FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(source)) = ?", [pk.databaseValue])
            case .hiddenForeignKey(let table, let column, let order):
                let clear = [column] + (order.map { [$0] } ?? [])
                try execute("UPDATE \(SQL.identifier(table)) SET \(clear.map { "\(SQL.identifier($0)) = NULL" }.joined(separator: ", ")) "
                            + "WHERE \(SQL.identifier(column)) = ?", [pk.databaseValue])
            default: break
            }
        }
    }

    /// The external files of `stored` values whose keys the write gives another value.
    private func releaseFiles(of stored: [String: ObjectValue], replacedBy values: [String: ObjectValue], keys: [String],
                              in entity: EntityMapping) {
        guard let external else { return }
        for key in keys where entity.attribute(key)?.attribute.allowsExternalBinaryDataStorage == true {
            guard case .attribute(let old)? = stored[key], case .externalFile = old, values[key] != stored[key] else { continue }
            external.release(old)
        }
    }

    /// Writes a to-many relationship's change from `old` to `new` where it is stored
    /// outside the object's row: join-table rows, a hidden key, or the order column.
    func writeToMany(_ object: ManagedObject, _ r: RelationshipMapping, old: [ObjectID], new: [ObjectID]) throws {
        let source = permanent(object.objectID).primaryKey.databaseValue
        let new = new.map(permanent), old = old.map(permanent)
        let oldSet = Set(old), newSet = Set(new)
        switch r.storage {
        case .joinTable(let table, let sourceColumn, let destinationColumn, let order):
            let t = SQL.identifier(table), s = SQL.identifier(sourceColumn), d = SQL.identifier(destinationColumn)
            for id in old where !newSet.contains(id) {
                try execute("DELETE FROM \(t) WHERE \(s) = ? AND \(d) = ?", [source, id.primaryKey.databaseValue])
            }
            for (i, id) in new.enumerated() {
                if let order {
                    try execute("INSERT OR REPLACE INTO \(t)(\(s), \(d), \(SQL.identifier(order))) VALUES(?, ?, ?)",
                                [source, id.primaryKey.databaseValue, Int64(i + 1).databaseValue])
                } else if !oldSet.contains(id) {
                    try execute("INSERT OR IGNORE INTO \(t)(\(s), \(d)) VALUES(?, ?)", [source, id.primaryKey.databaseValue])
                }
            }
        case .hiddenForeignKey(let table, let column, let order):
            let t = SQL.identifier(table), c = SQL.identifier(column)
            for id in old where !newSet.contains(id) {
                try execute("UPDATE \(t) SET \(c) = NULL WHERE Z_PK = ? AND \(c) = ?", [id.primaryKey.databaseValue, source])
            }
            for (i, id) in new.enumerated() {
                let sets = [c] + (order.map { [SQL.identifier($0)] } ?? [])
                let values = [source] + (order == nil ? [] : [Int64(i + 1).databaseValue])
                try execute("UPDATE \(t) SET \(sets.map { "\($0) = ?" }.joined(separator: ", ")) WHERE Z_PK = ?",
                            values + [id.primaryKey.databaseValue])
            }
        case .inverseForeignKey(let table, _, let order?):
            for (i, id) in new.enumerated() {
                try execute("UPDATE \(SQL.identifier(table)) SET \(SQL.identifier(order)) = ? WHERE Z_PK = ?",
                            [Int64(i + 1).databaseValue, id.primaryKey.databaseValue])
            }
        default:
            break
        }
    }

    /// An attribute's default in its column's storage form, as an insert, an import and a
    /// migration write it (read by `AttributeDefault`, which never refuses one, as Core Data
    /// does not); nil when it has none.
    static func storedDefault(of attribute: AttributeDescription) -> DatabaseValue? {
        AttributeDefault.value(of: attribute).flatMap { encode(.attribute($0), attribute) }
    }

    /// A mapping model's constant in its column's storage form.
    static func stored(_ text: String, _ attribute: AttributeDescription, entity: String) throws -> DatabaseValue? {
        encode(.attribute(try ValueParsing.attributeValue(text, attribute, entity: entity)), attribute)
    }

    /// An attribute value in its column's storage form; nil for values that cannot be
    /// written back (externally stored data, whose file this tool does not manage).
    static func encode(_ value: ObjectValue, _ attribute: AttributeDescription) -> DatabaseValue? {
        guard case .attribute(let a) = value else { return .null }
        switch a {
        case .null: return .null
        case .integer(let i): return i.databaseValue
        case .double(let d): return d.databaseValue
        case .bool(let b): return Int64(b ? 1 : 0).databaseValue
        case .string(let s): return s.databaseValue
        case .date(let d): return d.databaseValue
        case .data(let bytes):
            return Data(attribute.allowsExternalBinaryDataStorage ? [0x01] + bytes : bytes).databaseValue
        case .uuid(let uuid): return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue
        case .uri(let s): return s.databaseValue
        case .transformable(_, let bytes): return Data(bytes).databaseValue
        case .json(let bytes): return Data(bytes).databaseValue
        case .externalFile: return nil
        }
    }
}

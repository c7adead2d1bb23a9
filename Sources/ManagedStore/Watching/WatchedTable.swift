import Foundation
import GRDB
import GRDBSQLite

/// One table whose rows `watch` follows: the watched entities it stores, the keys they have
/// (attributes and to-one relationships by their columns, to-many relationships by the rows
/// that point back), and what was seen of each row at the last look.
final class WatchedTable {
    let name: String
    let entities: [EntityMapping]
    /// Keys in hash order: every column key first, then every to-many relationship.
    let keys: [String]
    private let columns: [String]
    private let toManys: [(key: Int, storage: RelationshipStorage)]
    /// Where `Z_ENT` sits in the table's columns: the entity a page's rows belong to says
    /// whether the page is this table's.
    let entityColumnIndex: Int?
    let entityIDs: Set<Int64>
    /// Every entity stored in the table, watched or not: a page whose rows are of one of
    /// them is this table's.
    var tableEntityIDs: Set<Int64> = []
    /// The table's b-tree root: when it is an empty leaf, the table is empty.
    var rootPage: UInt32?
    var summary: RowSummary

    init?(table: String, entities: [EntityMapping], schema: SchemaSnapshot) {
        guard let first = entities.first, let described = schema.table(table) else { return nil }
        name = table
        self.entities = entities
        var keys: [String] = []
        var columns: [String] = []
        var toManys: [(Int, RelationshipStorage)] = []
        var seen: Set<String> = []
        for entity in entities {
            for attribute in entity.attributes {
                guard let column = attribute.column, seen.insert(attribute.attribute.name).inserted else { continue }
                keys.append(attribute.attribute.name)
                columns.append(SQL.identifier(column))
            }
            for r in entity.relationships where !r.relationship.isToMany {
                guard case .foreignKey(let column, let entityColumn) = r.storage, seen.insert(r.relationship.name).inserted else { continue }
                keys.append(r.relationship.name)
                columns.append(entityColumn.map { "\(SQL.identifier(column)) || '/' || \(SQL.identifier($0))" } ?? SQL.identifier(column))
            }
        }
        for entity in entities {
            for r in entity.relationships where r.relationship.isToMany && !r.relationship.isTransient {
                switch r.storage {
                case .inverseForeignKey, .hiddenForeignKey, .joinTable:
                    guard seen.insert(r.relationship.name).inserted else { continue }
                    toManys.append((keys.count, r.storage))
                    keys.append(r.relationship.name)
                default: continue
                }
            }
        }
        self.keys = keys
        self.columns = columns
        self.toManys = toManys
        let entityColumn = first.entityColumn ?? "Z_ENT"
        entityColumnIndex = described.columns.firstIndex { SchemaSnapshot.sameName($0.name, entityColumn) }
        entityIDs = Set(entities.compactMap { $0.entityID.map(Int64.init) })
        summary = RowSummary(stride: keys.count)
    }

    /// The rows with these keys as the store holds them now (every row when nil), in key
    /// order, each with its mark (the predicate's match not yet known: true) and key hashes.
    /// Streamed: one hash buffer serves every row.
    func forEachRow(_ keys: [Int64]?, _ db: Database, _ body: (Int64, RowSummary.Mark, [UInt32]) throws -> Void) throws {
        let first = entities[0]
        let entity = first.tableHasSubentities ? SQL.identifier(first.entityColumn ?? "Z_ENT") : String(first.entityID ?? 0)
        let primaryKey = SQL.identifier(first.primaryKeyColumn)
        let version = first.versionColumn.map(SQL.identifier) ?? "0"
        var sql = "SELECT \(primaryKey), \(entity), \(version)" + columns.map { ", " + $0 }.joined() + " FROM \(SQL.identifier(name))"
        var conditions: [String] = []
        if first.tableHasSubentities { conditions.append("\(entity) IN (\(entityIDs.map(String.init).joined(separator: ", ")))") }
        if let keys { conditions.append("\(primaryKey) IN (\(keys.map(String.init).joined(separator: ", ")))") }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY \(primaryKey)"
        var toMany: [[Int64: UInt32]] = []
        for (_, storage) in toManys { toMany.append(try Self.destinations(storage, owners: keys, db)) }
        let statement = try db.makeStatement(sql: sql)
        let reader = ColumnReader(statement.sqliteStatement)
        try reader.bind([], db)
        var hashes = [UInt32](repeating: 0, count: self.keys.count)
        while try reader.step(db) {
            try Cancellation.check()
            let key = reader.int64(0)
            for index in columns.indices { hashes[index] = Self.hash(statement.sqliteStatement, Int32(index + 3)) }
            for (slot, (index, _)) in toManys.enumerated() { hashes[index] = toMany[slot][key] ?? 0 }
            try body(key, .init(entity: reader.int64(1), version: reader.int64(2), matches: true), hashes)
        }
    }

    /// Of these keys, those whose rows exist now.
    func existing(_ keys: [Int64], _ db: Database) throws -> Set<Int64> {
        guard !keys.isEmpty else { return [] }
        let column = SQL.identifier(entities[0].primaryKeyColumn)
        let sql = "SELECT \(column) FROM \(SQL.identifier(name)) WHERE \(column) IN (\(keys.map(String.init).joined(separator: ", ")))"
        return Set(try Int64.fetchAll(db, sql: sql))
    }

    /// A digest of each owner's destinations of one to-many relationship: the set of keys,
    /// so that adding, removing or moving one changes it.
    private static func destinations(_ storage: RelationshipStorage, owners: [Int64]?, _ db: Database) throws -> [Int64: UInt32] {
        let (table, owner, destination): (String, String, String)
        switch storage {
        case .inverseForeignKey(let t, let column, _), .hiddenForeignKey(let t, let column, _): (table, owner, destination) = (t, column, "Z_PK")
        case .joinTable(let t, let source, let target, _): (table, owner, destination) = (t, source, target)
        default: return [:]
        }
        let filter = owners.map { "IN (\($0.map(String.init).joined(separator: ", ")))" } ?? "IS NOT NULL"
        let sql = "SELECT \(SQL.identifier(owner)), \(SQL.identifier(destination)) FROM \(SQL.identifier(table)) "
            + "WHERE \(SQL.identifier(owner)) \(filter)"
        var sums: [Int64: UInt64] = [:]
        let statement = try db.makeStatement(sql: sql)
        let reader = ColumnReader(statement.sqliteStatement)
        try reader.bind([], db)
        while try reader.step(db) {
            sums[reader.int64(0), default: 0] &+= mix(UInt64(bitPattern: reader.int64(1)))
        }
        return sums.mapValues { UInt32(truncatingIfNeeded: mix($0) >> 16) | 1 }
    }

    /// A column's value as stored, hashed with its type (FNV-1a), so that 1 and '1' differ.
    static func hash(_ statement: OpaquePointer, _ column: Int32) -> UInt32 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let type = sqlite3_column_type(statement, column)
        add(UInt8(truncatingIfNeeded: type))
        switch type {
        case SQLITE_INTEGER:
            var v = UInt64(bitPattern: sqlite3_column_int64(statement, column))
            for _ in 0..<8 { add(UInt8(truncatingIfNeeded: v)); v >>= 8 }
        case SQLITE_FLOAT:
            var v = sqlite3_column_double(statement, column).bitPattern
            for _ in 0..<8 { add(UInt8(truncatingIfNeeded: v)); v >>= 8 }
        case SQLITE_TEXT, SQLITE_BLOB:
            let base = type == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_column_text(statement, column)) : sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            if let base { for byte in UnsafeRawBufferPointer(start: base, count: count) { add(byte) } }
        default:
            break
        }
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

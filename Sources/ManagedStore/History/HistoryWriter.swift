import Foundation
import GRDB
import GRDBSQLite

/// Writes the persistent history of one save or batch request, in its SQLite transaction,
/// as Core Data does (reference/persistent-history.md): an `ATRANSACTION` row with interned
/// strings, then one `ACHANGE` row per inserted, updated and deleted object, with `ZCOLUMNS`
/// for updates and `ZTOMBSTONEn` for deletes. Nothing is written for a store without the
/// tables, and the transaction row only once there is a change: one transaction per write.
final class HistoryWriter {
    static let changeEntity: Int64 = 16001
    static let transactionEntity: Int64 = 16002
    static let stringEntity: Int64 = 16003

    private let db: Database
    private let store: PersistentStore
    private let origin: HistoryOrigin
    private let changeTable: SchemaSnapshot.Table
    private let transactionTable: SchemaSnapshot.Table
    private var token: Int64?
    private var nextChangeKey: Int64 = 0
    private var bits: [String: UpdatedPropertyBits] = [:]

    /// nil when the store keeps no history.
    init?(db: Database, store: PersistentStore, origin: HistoryOrigin) {
        guard let transactions = store.schema.table("ATRANSACTION"), let changes = store.schema.table("ACHANGE") else { return nil }
        self.db = db
        self.store = store
        self.origin = origin
        transactionTable = transactions
        changeTable = changes
    }

    func insert(_ entity: EntityMapping, _ key: Int64) throws {
        try record(.insert, entity, key, columns: [], values: [])
    }

    func update(_ entity: EntityMapping, _ key: Int64, keys: some Sequence<String>) throws {
        try updates(entity, [key], properties: keys)
    }

    /// The same update of many objects of one entity, as a batch update makes it: the
    /// bitmap is worked out once, and one prepared insert, bound once with what every row
    /// shares, takes each row's two keys. Row by row through the general insert (its text,
    /// a cache lookup and an arguments array per row) a million changes took 5.7 s against
    /// the UPDATE's 0.7 s.
    func updates(_ entity: EntityMapping, _ keys: [Int64], properties: some Sequence<String>) throws {
        guard !keys.isEmpty else { return }
        let token = try self.token ?? beginTransaction()
        let bitmap = bitmap(entity, properties)
        let statement = try db.cachedStatement(
            sql: "INSERT INTO ACHANGE(Z_PK, Z_ENT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES(?, ?, ?, ?, ?, ?, ?)")
        let handle = statement.sqliteStatement
        // Bindings outlive sqlite3_reset: what every row shares is bound once.
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 2, HistoryWriter.changeEntity)
        sqlite3_bind_int64(handle, 3, HistoryChangeType.update.rawValue)
        sqlite3_bind_int64(handle, 4, Int64(entity.entityID ?? 0))
        sqlite3_bind_int64(handle, 6, token)
        let bound = bitmap.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, 7, bytes.baseAddress, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
        guard bound == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: bound), message: "binding ZCOLUMNS") }
        defer { sqlite3_reset(handle) }
        for key in keys {
            sqlite3_bind_int64(handle, 1, nextChangeKey)
            sqlite3_bind_int64(handle, 5, key)
            let stepped = sqlite3_step(handle)
            guard stepped == SQLITE_DONE else {
                let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
                throw DatabaseError(resultCode: ResultCode(rawValue: stepped), message: message, sql: statement.sql)
            }
            sqlite3_reset(handle)
            nextChangeKey += 1
        }
    }

    /// The `ZCOLUMNS` bytes that name these properties of the entity. A composite's leaf
    /// (`address.city`) marks its own element's bit.
    private func bitmap(_ entity: EntityMapping, _ keys: some Sequence<String>) -> [UInt8] {
        let bits = self.bits[entity.name] ?? UpdatedPropertyBits(entity: entity.name, model: store.model,
                                                                 learned: store.learnedToManyOrder(db))
        self.bits[entity.name] = bits
        return bits.bitmap(keys)
    }

    /// Call before the row is deleted: the tombstone is read from it.
    func delete(_ entity: EntityMapping, _ key: Int64) throws {
        var columns: [String] = []
        var values: [DatabaseValue] = []
        let preserved = PersistentHistory.preservedAttributes(entity, model: store.model)
        if !preserved.isEmpty {
            let slots = preserved.enumerated().compactMap { slot, attribute -> (String, String)? in
                guard changeTable.hasColumn("ZTOMBSTONE\(slot)"),
                      let column = entity.attribute(attribute.name)?.column else { return nil }
                return ("ZTOMBSTONE\(slot)", column)
            }
            if !slots.isEmpty, let row = try Row.fetchOne(
                db, sql: "SELECT \(slots.map { SQL.identifier($0.1) }.joined(separator: ", ")) FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ?",
                arguments: [key]) {
                columns = slots.map(\.0)
                values = (0..<slots.count).map { row[$0] as DatabaseValue }
            }
        }
        try record(.delete, entity, key, columns: columns, values: values)
    }

    /// Brings `Z_PRIMARYKEY` up to the keys handed out; call once, after the last change.
    func finish() throws {
        guard let token else { return }
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX < ?",
                       arguments: [nextChangeKey - 1, HistoryWriter.changeEntity, nextChangeKey - 1])
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX < ?",
                       arguments: [token, HistoryWriter.transactionEntity, token])
    }

    private func record(_ type: HistoryChangeType, _ entity: EntityMapping, _ key: Int64,
                        columns: [String], values: [DatabaseValue]) throws {
        let token = try self.token ?? beginTransaction()
        let names = ["Z_PK", "Z_ENT", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID"] + columns
        let statement = try db.cachedStatement(
            sql: "INSERT INTO ACHANGE(\(names.joined(separator: ", "))) VALUES(\(names.map { _ in "?" }.joined(separator: ", ")))")
        try statement.execute(arguments: StatementArguments(
            [nextChangeKey.databaseValue, HistoryWriter.changeEntity.databaseValue, type.rawValue.databaseValue,
             Int64(entity.entityID ?? 0).databaseValue, key.databaseValue, token.databaseValue] + values))
        nextChangeKey += 1
    }

    private func beginTransaction() throws -> Int64 {
        let token = try nextKey(HistoryWriter.transactionEntity, table: "ATRANSACTION")
        nextChangeKey = try nextKey(HistoryWriter.changeEntity, table: "ACHANGE")
        var columns = ["Z_PK", "Z_ENT"]
        var values: [DatabaseValue] = [token.databaseValue, HistoryWriter.transactionEntity.databaseValue]
        if transactionTable.hasColumn("ZTIMESTAMP") {
            columns.append("ZTIMESTAMP")
            values.append(Date().timeIntervalSinceReferenceDate.databaseValue)
        }
        let process = ProcessInfo.processInfo.processName
        let strings: [(String, String?)] = [("AUTHOR", origin.author), ("BUNDLEID", origin.bundleID ?? process),
                                            ("CONTEXTNAME", origin.contextName), ("PROCESSID", process)]
        for (field, value) in strings {
            guard let value else { continue }
            if transactionTable.hasColumn("Z\(field)TS"), let interned = try intern(value) {
                columns.append("Z\(field)TS")
                values.append(interned.databaseValue)
            } else if transactionTable.hasColumn("Z\(field)") {
                columns.append("Z\(field)")
                values.append(value.databaseValue)
            }
        }
        try db.execute(sql: "INSERT INTO ATRANSACTION(\(columns.joined(separator: ", "))) VALUES(\(columns.map { _ in "?" }.joined(separator: ", ")))",
                       arguments: StatementArguments(values))
        self.token = token
        return token
    }

    /// The key of an interned string, added when it is new; nil without the strings table.
    private func intern(_ text: String) throws -> Int64? {
        guard store.schema.table("ATRANSACTIONSTRING")?.hasColumn("ZNAME") == true else { return nil }
        if let key = try DatabaseValue.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ? LIMIT 1", arguments: [text])
            .flatMap(Int64.fromDatabaseValue) {
            return key
        }
        let key = try nextKey(HistoryWriter.stringEntity, table: "ATRANSACTIONSTRING")
        try db.execute(sql: "INSERT INTO ATRANSACTIONSTRING(Z_PK, Z_ENT, ZNAME) VALUES(?, ?, ?)",
                       arguments: [key, HistoryWriter.stringEntity, text])
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_MAX < ?",
                       arguments: [key, HistoryWriter.stringEntity, key])
        return key
    }

    /// The next key of a history table: past both `Z_MAX` and the keys the table holds, so
    /// a counter a hand edit left behind cannot hand out a key that is taken.
    private func nextKey(_ entity: Int64, table: String) throws -> Int64 {
        // Read leniently: a counter holding text is passed over, not trusted.
        let counter = try DatabaseValue.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", arguments: [entity])
        let highest = try DatabaseValue.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(table)")
        let (next, overflow) = max(counter.flatMap(Int64.fromDatabaseValue) ?? 0, highest.flatMap(Int64.fromDatabaseValue) ?? 0)
            .addingReportingOverflow(1)
        guard !overflow else { throw StoreError.primaryKeyCounterDamaged(entity: table, stored: "\(Int64.max)", problem: "the largest 64-bit integer") }
        return next
    }
}

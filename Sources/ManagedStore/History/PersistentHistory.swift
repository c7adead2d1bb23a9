import Foundation
import GRDB

/// A store's persistent history, read as `NSPersistentHistoryChangeRequest` reads it
/// (reference/persistent-history.md): `ATRANSACTION` rows with their interned strings, and
/// `ACHANGE` rows resolved against the store's model. Reading is tolerant: a column the
/// store lacks reads as NULL, and an extra one is ignored.
public struct PersistentHistory {
    public let store: PersistentStore
    let transactionTable: SchemaSnapshot.Table
    let changeTable: SchemaSnapshot.Table
    let stringTable: SchemaSnapshot.Table?

    public init(store: PersistentStore) throws {
        guard let transactions = store.schema.table("ATRANSACTION"), let changes = store.schema.table("ACHANGE") else {
            throw HistoryError.noHistory(path: store.path)
        }
        self.store = store
        transactionTable = transactions
        changeTable = changes
        stringTable = store.schema.table("ATRANSACTIONSTRING").flatMap { $0.hasColumn("ZNAME") ? $0 : nil }
    }

    public struct Summary: Sendable, Equatable {
        public var transactions: Int64
        public var firstToken: Int64?
        public var lastToken: Int64?
    }

    public func summary(_ db: Database) throws -> Summary {
        let row = try Row.fetchOne(db, sql: "SELECT count(*), min(Z_PK), max(Z_PK) FROM ATRANSACTION")
        return Summary(transactions: row?[0] ?? 0, firstToken: row?[1], lastToken: row?[2])
    }

    /// Transactions in token order, with the number of (matching) changes of each type.
    public func transactions(_ query: HistoryQuery, _ db: Database, _ body: (HistoryTransaction) throws -> Void) throws {
        try check(query, db)
        var changeFilter = changeConditions(query, alias: "c")
        if let after = query.after { changeFilter.append(("c.ZTRANSACTIONID > ?", [after.databaseValue])) }
        let counts = "SELECT c.ZTRANSACTIONID AS tx, SUM(c.ZCHANGETYPE = 0) AS i, SUM(c.ZCHANGETYPE = 1) AS u, "
            + "SUM(c.ZCHANGETYPE = 2) AS d FROM ACHANGE c" + Self.whereClause(changeFilter) + " GROUP BY c.ZTRANSACTIONID"
        let filter = transactionConditions(query, alias: "t")
        var sql = "SELECT " + transactionColumns("t") + ", k.i, k.u, k.d FROM ATRANSACTION t "
            + (query.filtersChanges ? "JOIN" : "LEFT JOIN") + " (\(counts)) k ON k.tx = t.Z_PK"
            + Self.whereClause(filter) + " ORDER BY t.Z_PK"
        sql += query.limitClause
        let arguments = changeFilter.flatMap(\.1) + filter.flatMap(\.1)
        let statement = try db.makeStatement(sql: sql)
        let reader = ColumnReader(statement.sqliteStatement)
        try reader.bind(arguments, db)
        while try reader.step(db) {
            try Cancellation.check()
            var transaction = Self.transaction(reader)
            transaction.inserts = Int(reader.int64(6))
            transaction.updates = Int(reader.int64(7))
            transaction.deletes = Int(reader.int64(8))
            try body(transaction)
        }
    }

    /// Changes in commit order (token, then the order they were recorded), each with its
    /// transaction.
    public func changes(_ query: HistoryQuery, _ db: Database, _ body: (HistoryTransaction, HistoryChange) throws -> Void) throws {
        try check(query, db)
        let tombstones = changeTable.columns.map(\.name).filter { $0.uppercased().hasPrefix("ZTOMBSTONE") }
            .compactMap { name -> (Int, String)? in Int(name.dropFirst("ZTOMBSTONE".count)).map { ($0, name) } }
            .sorted { $0.0 < $1.0 }
        let transactionFilter = transactionConditions(query, alias: "t")
        let conditions = changeConditions(query, alias: "c") + transactionFilter
        // The transaction's columns (four interned strings) are read once per transaction,
        // by a point query, not on every change row; the join stays only for its filters.
        var sql = "SELECT c.ZTRANSACTIONID, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, " + changeTable.select("ZCOLUMNS", "c")
            + tombstones.map { ", c.\(SQL.identifier($0.1))" }.joined()
            + " FROM ACHANGE c" + (transactionFilter.isEmpty ? "" : " LEFT JOIN ATRANSACTION t ON t.Z_PK = c.ZTRANSACTIONID")
            + Self.whereClause(conditions) + " ORDER BY c.ZTRANSACTIONID, c.Z_PK"
        sql += query.limitClause
        var entities = EntityLookup(store: store, learned: store.learnedToManyOrder(db))
        // Read through the C API: a history holds millions of changes.
        let statement = try db.makeStatement(sql: sql)
        let reader = ColumnReader(statement.sqliteStatement)
        try reader.bind(conditions.flatMap(\.1), db)
        let transactionStatement = try db.makeStatement(sql: "SELECT " + transactionColumns("t") + " FROM ATRANSACTION t WHERE t.Z_PK = ?")
        let transactionReader = ColumnReader(transactionStatement.sqliteStatement)
        var transaction: HistoryTransaction?
        var bitmaps: [Int64: [[UInt8]: [String]]] = [:]
        while try reader.step(db) {
            try Cancellation.check()
            let token = reader.int64(0)
            if transaction?.token != token {
                try transactionReader.bind([token.databaseValue], db)
                var read = try transactionReader.step(db) ? Self.transaction(transactionReader) : HistoryTransaction(token: token)
                read.token = token
                transaction = read
            }
            let storedType = reader.isNull(1) ? -1 : reader.int64(1)
            let number = reader.int64(2)
            let entity = entities.entity(number)
            var change = HistoryChange(token: token, type: HistoryChangeType(rawValue: storedType), storedType: storedType,
                                       entityName: entity?.mapping.name, entityNumber: number, primaryKey: reader.int64(3),
                                       updatedProperties: nil, tombstone: [])
            if change.type == .update {
                if case .blob(let bits) = reader.stored(4) {
                    if let known = bitmaps[number]?[bits] {
                        change.updatedProperties = known
                    } else {
                        let names = entity?.bits.names(bits) ?? UpdatedPropertyBits(orderedNames: []).names(bits)
                        // Bitmaps repeat; a bounded number of them is remembered per entity.
                        if bitmaps[number, default: [:]].count < 4096 { bitmaps[number, default: [:]][bits] = names }
                        change.updatedProperties = names
                    }
                } else {
                    change.updatedProperties = []
                }
            }
            if change.type == .delete, let entity {
                for (slot, attribute) in entity.preserved.enumerated() {
                    guard let index = tombstones.firstIndex(where: { $0.0 == slot }) else { continue }
                    let stored = reader.stored(5 + index)
                    change.tombstone.append((attribute.name, AttributeValueDecoder.decode(stored, as: attribute, store: store.file)))
                }
            }
            try body(transaction ?? HistoryTransaction(token: token), change)
        }
    }

    /// A token must be one the store handed out, and the transactions after it must still
    /// be there: Core Data refuses a token whose successors were deleted rather than start
    /// silently later.
    func check(_ query: HistoryQuery, _ db: Database) throws {
        guard let after = query.after else { return }
        let summary = try summary(db)
        // The counter remembers tokens handed out even when every transaction was deleted.
        let counter = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?",
                                         arguments: [HistoryWriter.transactionEntity])
        let newest = max(summary.lastToken ?? 0, counter ?? 0)
        let kept = summary.firstToken.flatMap { first in summary.lastToken.map { first...$0 } }
        if after < 0 || after > newest { throw HistoryError.unknownToken(after, kept: kept) }
        let oldest = summary.firstToken ?? newest + 1
        if after < oldest - 1 { throw HistoryError.tokenExpired(after, oldest: summary.firstToken) }
    }

    /// The attributes an entity keeps in a delete's tombstone, in `ZTOMBSTONEn` order: those
    /// the entity's ancestors declare first (the root's first), then its own, each level by
    /// name, as Core Data's own deletes fill them (knowledgeC's `Event`: `uuid`, declared by
    /// `Object`, in 0; its own `shouldSync` in 1). "Declared by" is the highest entity that
    /// has a property of that name, since older model caches repeat inherited properties in
    /// each sub-entity as if they were its own.
    public static func preservedAttributes(_ entity: EntityMapping, model: ManagedObjectModel) -> [AttributeDescription] {
        var chain: [EntityDescription] = model.ancestors(of: entity.name).reversed()
        if let own = model.entity(named: entity.name) { chain.append(own) }
        func level(_ name: String) -> Int {
            chain.firstIndex { owner in owner.properties.contains { $0.name == name } } ?? chain.count
        }
        let preserved = entity.attributes.map(\.attribute)
            .filter { $0.preservesValueInHistoryOnDeletion && !$0.allowsExternalBinaryDataStorage }
        let levels: [(level: Int, attribute: AttributeDescription)] = preserved.map { (level($0.name), $0) }
        return levels.sorted { a, b in a.level != b.level ? a.level < b.level : a.attribute.name < b.attribute.name }.map(\.attribute)
    }

    // MARK: SQL

    typealias Condition = (String, [DatabaseValue])

    static func whereClause(_ conditions: [Condition]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.map(\.0).joined(separator: " AND ")
    }

    private func changeConditions(_ query: HistoryQuery, alias c: String) -> [Condition] {
        var result: [Condition] = []
        if let entity = query.entity { result.append(("\(c).ZENTITY IN (\(entity.entityIDs.map(String.init).joined(separator: ", ")))", [])) }
        if let (entity, key) = query.object {
            result.append(("\(c).ZENTITY IN (\(entity.entityIDs.map(String.init).joined(separator: ", "))) AND \(c).ZENTITYPK = ?",
                           [key.databaseValue]))
        }
        if let type = query.type { result.append(("\(c).ZCHANGETYPE = ?", [type.rawValue.databaseValue])) }
        return result
    }

    private func transactionConditions(_ query: HistoryQuery, alias t: String) -> [Condition] {
        var result: [Condition] = []
        if let after = query.after { result.append(("\(t).Z_PK > ?", [after.databaseValue])) }
        let timestamp = transactionTable.select("ZTIMESTAMP", t)
        if let since = query.since { result.append(("\(timestamp) >= ?", [since.databaseValue])) }
        if let until = query.until { result.append(("\(timestamp) <= ?", [until.databaseValue])) }
        if let author = query.author { result.append(("\(interned("AUTHOR", t)) = ?", [author.databaseValue])) }
        if let name = query.contextName { result.append(("\(interned("CONTEXTNAME", t)) = ?", [name.databaseValue])) }
        return result
    }

    /// Token, timestamp, author, context name, bundle ID, process ID.
    private func transactionColumns(_ t: String) -> String {
        ["\(t).Z_PK", transactionTable.select("ZTIMESTAMP", t), interned("AUTHOR", t), interned("CONTEXTNAME", t),
         interned("BUNDLEID", t), interned("PROCESSID", t)].joined(separator: ", ")
    }


    /// A string of the transaction: the interned one (`ZAUTHORTS` → `ATRANSACTIONSTRING`),
    /// else the plain column older stores fill.
    func interned(_ field: String, _ t: String) -> String {
        var choices: [String] = []
        if let strings = stringTable, transactionTable.hasColumn("Z\(field)TS") {
            choices.append("(SELECT s.ZNAME FROM \(SQL.identifier(strings.name)) s WHERE s.Z_PK = \(t).Z\(field)TS)")
        }
        if transactionTable.hasColumn("Z\(field)") { choices.append("\(t).Z\(field)") }
        switch choices.count {
        case 0: return "NULL"
        case 1: return choices[0]
        default: return "COALESCE(\(choices.joined(separator: ", ")))"
        }
    }

    /// A transaction's columns (token, timestamp, author, context name, bundle ID, process
    /// ID), read leniently: a number where a string belongs (a hand-edited row) is shown as
    /// text, and a timestamp that is not a number as none.
    private static func transaction(_ reader: ColumnReader) -> HistoryTransaction {
        func text(_ i: Int) -> String? {
            switch reader.stored(i) {
            case .null: return nil
            case .text(let s): return s
            case .integer(let n): return String(n)
            case .real(let d): return String(d)
            case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
            }
        }
        let timestamp: Double?
        switch reader.stored(1) {
        case .real(let d): timestamp = d
        case .integer(let n): timestamp = Double(n)
        default: timestamp = nil
        }
        return HistoryTransaction(token: reader.int64(0), timestamp: timestamp, author: text(2), contextName: text(3),
                                  bundleID: text(4), processID: text(5))
    }
}

/// Entities by their `Z_ENT` number, each with what reading its changes needs, looked up
/// once per number.
private struct EntityLookup {
    struct Entry {
        let mapping: EntityMapping
        let bits: UpdatedPropertyBits
        let preserved: [AttributeDescription]
    }

    let store: PersistentStore
    let learned: LearnedToManyOrder
    private var found: [Int64: Entry?] = [:]

    init(store: PersistentStore, learned: LearnedToManyOrder) {
        self.store = store
        self.learned = learned
    }

    mutating func entity(_ number: Int64) -> Entry? {
        if let known = found[number] { return known }
        let entry = Int(exactly: number).flatMap { store.mapping.entity(withID: $0) }.map {
            Entry(mapping: $0, bits: UpdatedPropertyBits(entity: $0.name, model: store.model, learned: learned),
                  preserved: PersistentHistory.preservedAttributes($0, model: store.model))
        }
        found[number] = entry
        return entry
    }
}

extension HistoryQuery {
    /// `LIMIT n OFFSET m`, or nothing; SQLite takes an offset only after a limit (-1: none).
    var limitClause: String {
        guard limit != nil || (offset ?? 0) > 0 else { return "" }
        return " LIMIT \(limit ?? -1)" + ((offset ?? 0) > 0 ? " OFFSET \(offset ?? 0)" : "")
    }
}

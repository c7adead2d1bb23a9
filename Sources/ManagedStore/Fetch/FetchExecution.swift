import Foundation
import GRDB
import GRDBSQLite

/// One fetched object (or dictionary): its ID when the result type has one, and its
/// property values in the plan's order, as an object holds them (a to-one relationship as
/// the destination's ID), so that handing a value on copies it once and converts nothing.
public struct FetchedRow {
    public let objectID: ObjectID?
    public let values: [ObjectValue]
    /// The row's `Z_OPT`, for objects: what an update's optimistic lock compares against.
    public var version: Int64? = nil
}

extension FetchPlan {
    /// Runs a count plan.
    public func count(_ db: Database) throws -> Int {
        let timer = log?.shows(1) == true ? SQLTimer() : nil
        let prepared = try db.makeStatement(sql: statement.sql)
        let columns = ColumnReader(prepared.sqliteStatement)
        try columns.bind(statement.arguments, db)
        let count = try columns.step(db) ? Int(columns.int64(0)) : 0
        if let timer { log?.counted(count, time: timer.elapsed) }
        return count
    }

    /// Streams the rows through `body` as SQLite produces them; nothing is collected, so
    /// memory stays flat whatever the number of rows. Returns how many rows there were.
    @discardableResult
    public func forEach(_ db: Database, _ body: (FetchedRow) throws -> Void) throws -> Int {
        let prepared = try db.makeStatement(sql: statement.sql)
        let columns = ColumnReader(prepared.sqliteStatement)
        try columns.bind(statement.arguments, db)
        guard let batchStatement, let size = request.batchSize else {
            // One values buffer for every row: the body is done with a row before the next.
            var buffer: [ObjectValue] = []
            buffer.reserveCapacity(decoders.count)
            return try stream(columns, db) { try body(decode(columns, into: &buffer)) }
        }
        // Batched, as Core Data's fetchBatchSize: the IDs first, then each batch's rows.
        var ids: [Int64] = []
        try stream(columns, db) { ids.append(columns.int64(1)) }
        var count = 0
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(start + size, ids.count)])
            let placeholders = "(" + Array(repeating: "?", count: batch.count).joined(separator: ", ") + ")"
            var rows: [Int64: FetchedRow] = [:]
            let prepared = try db.makeStatement(sql: batchStatement + placeholders)
            let columns = ColumnReader(prepared.sqliteStatement)
            try columns.bind(batch.map(\.databaseValue), db)
            var buffer: [ObjectValue] = []
            try stream(columns, db) {
                rows[columns.int64(1)] = decode(columns, into: &buffer)
                buffer = []
            }
            for id in batch {
                if let row = rows[id] { try body(row); count += 1 }
            }
            start += size
        }
        return count
    }

    /// Steps a bound statement to its end, calling `body` on each row, and writes the
    /// fetch's debug lines: with the log on, the time spent inside SQLite is measured
    /// apart from the time spent on each row, as Core Data's two fetch timings are.
    @discardableResult
    private func stream(_ columns: ColumnReader, _ db: Database, _ body: () throws -> Void) throws -> Int {
        var count = 0
        guard let log, log.shows(1) else {
            while try columns.step(db) { try body(); count += 1 }
            return count
        }
        let total = SQLTimer()
        var stepping: TimeInterval = 0
        while true {
            let step = SQLTimer()
            let more = try columns.step(db)
            stepping += step.elapsed
            guard more else { break }
            if log.shows(3) { log.details("row values: (" + columns.descriptions().joined(separator: ", ") + ")") }
            try body()
            count += 1
        }
        log.fetched(rows: count, entity: entity.name, sql: columns.sql, statement: columns.handle,
                    stepping: stepping, total: total.elapsed)
        return count
    }

    func decode(_ row: ColumnReader, into values: inout [ObjectValue]) -> FetchedRow {
        var objectID: ObjectID?
        if let primaryKeyIndex, let entityIndex {
            objectID = makeObjectID(entityID: row.int64(entityIndex), fallback: entity.name, primaryKey: row.int64(primaryKeyIndex))
        }
        values.removeAll(keepingCapacity: true)
        for decoder in decoders {
            // A UUID column is read from SQLite's bytes in place: no array per row.
            if decoder.type == .uuid, let uuid = row.uuid(decoder.index) {
                values.append(.attribute(.uuid(uuid)))
                continue
            }
            let stored = row.stored(decoder.index)
            if let type = decoder.type {
                values.append(.attribute(AttributeValueDecoder.decode(stored, type: type, external: decoder.external, store: storeFile)))
            } else if case .integer(let key) = stored {
                let entityID: Int64? = decoder.entityIndex.flatMap { row.isNull($0) ? nil : row.int64($0) }
                values.append(.toOne(makeObjectID(entityID: entityID, fallback: decoder.destination, primaryKey: key)))
            } else {
                values.append(.toOne(nil))
            }
        }
        return FetchedRow(objectID: objectID, values: values, version: versionIndex.map { row.int64($0) })
    }

    func makeObjectID(entityID: Int64?, fallback: String, primaryKey: Int64) -> ObjectID {
        var name = fallback
        if let entityID, entityID >= 0, entityID < entityNames.count, let known = entityNames[Int(entityID)] { name = known }
        return ObjectID(storeUUID: storeUUID, entityName: name, primaryKey: primaryKey)
    }
}

/// Reads the current row of a stepped statement through the C API: one call per column,
/// no generic decoding.
struct ColumnReader {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    func isNull(_ i: Int) -> Bool { sqlite3_column_type(handle, Int32(i)) == SQLITE_NULL }

    func int64(_ i: Int) -> Int64 { sqlite3_column_int64(handle, Int32(i)) }

    /// Binds values by position. Text is bound with its length, so a NUL byte inside a value
    /// is part of it rather than its end (GRDB binds text as a C string).
    func bind(_ values: [DatabaseValue], _ db: Database) throws {
        try bind(values, connection: db.sqliteConnection)
    }

    /// As `bind(_:_:)`, on a connection GRDB does not hold (`GuardedConnection`).
    func bind(_ values: [DatabaseValue], connection: OpaquePointer?) throws {
        try Cancellation.check()
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let code: Int32
            switch value.storage {
            case .null: code = sqlite3_bind_null(handle, index)
            case .int64(let v): code = sqlite3_bind_int64(handle, index, v)
            case .double(let v): code = sqlite3_bind_double(handle, index, v)
            case .string(let s):
                var text = s
                code = text.withUTF8 { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_text(handle, index, "", 0, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                    }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text(handle, index, $0, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                    }
                }
            case .blob(let data):
                code = data.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
                    return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                }
            }
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: connection.map { String(cString: sqlite3_errmsg($0)) })
            }
        }
    }

    /// Steps to the next row; false when done. Errors (an interrupt, a busy store, damage)
    /// come back as GRDB's `DatabaseError`, as from any other statement.
    func step(_ db: Database) throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: String(cString: sqlite3_sql(handle)))
        }
    }

    /// The statement's text, as SQLite holds it.
    var sql: String { String(cString: sqlite3_sql(handle)) }

    /// The current row's columns as the debug log shows values (as bind values are shown).
    func descriptions() -> [String] {
        (0..<Int(sqlite3_column_count(handle))).map { i in
            switch stored(i) {
            case .null: return "nil"
            case .integer(let v): return String(v)
            case .real(let v): return String(v)
            case .text(let v): return v
            case .blob(let v): return "{length = \(v.count)}"
            }
        }
    }

    /// A 16-byte blob column as a UUID; nil for anything else.
    func uuid(_ i: Int) -> UUID? {
        let column = Int32(i)
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB, let bytes = sqlite3_column_blob(handle, column) else { return nil }
        return UUID(raw: UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))))
    }

    func stored(_ i: Int) -> StoredValue {
        let column = Int32(i)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

import Foundation
import GRDB
import GRDBSQLite

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
    /// `checksCancellation`: false for a caller that checks once per batch of rows (the
    /// check takes a lock).
    func bind(_ values: [DatabaseValue], _ db: Database, checksCancellation: Bool = true) throws {
        try bind(values, connection: db.sqliteConnection, checksCancellation: checksCancellation)
    }

    /// As `bind(_:_:)`, on a connection GRDB does not hold (`GuardedConnection`).
    func bind(_ values: [DatabaseValue], connection: OpaquePointer?, checksCancellation: Bool = true) throws {
        if checksCancellation { try Cancellation.check() }
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

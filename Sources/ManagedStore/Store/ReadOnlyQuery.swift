import Foundation
import GRDB
import GRDBSQLite

/// SQL a user types against the store's tables (`sql`): one statement, on the store's
/// read-only connection, refused before it runs when SQLite says it would write
/// (`sqlite3_stmt_readonly`). Rows are handed over one at a time, never collected.
public enum ReadOnlyQuery {
    /// Runs `sql` with `bindings` for its `?` parameters; `row` is called per row with the
    /// columns' stored values, and may return false to stop; `columns` gets the names first.
    public static func run(_ sql: String, bindings: [StoredValue], store: PersistentStore, columns: ([String]) -> Void,
                           row: ([StoredValue]) throws -> Bool) throws {
        let text = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw QueryError.empty }
        try store.read { db in
            let statement: Statement
            do { statement = try db.makeStatement(sql: text) } catch let error as DatabaseError {
                throw QueryError.sqlite(error.message ?? "\(error)")
            }
            let handle = statement.sqliteStatement
            guard sqlite3_stmt_readonly(handle) != 0 else { throw QueryError.writes }
            let parameters = Int(sqlite3_bind_parameter_count(handle))
            guard parameters == bindings.count else { throw QueryError.parameters(expected: parameters, given: bindings.count) }
            let reader = ColumnReader(handle)
            try reader.bind(bindings.map(\.databaseValue), db)
            columns(statement.columnNames)
            let count = Int(sqlite3_column_count(handle))
            while try reader.step(db) {
                try Cancellation.check()
                guard try row((0..<count).map(reader.stored)) else { break }
            }
        }
    }

    /// `explain`'s output pasted whole: the SQL, then `bind[i] = VALUE` lines, which give
    /// the parameters' values.
    public static func split(pasted text: String) -> (sql: String, bindings: [String]) {
        var sql: [Substring] = []
        var bindings: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("bind["), let eq = trimmed.range(of: "] = ") {
                bindings.append(String(trimmed[eq.upperBound...]))
            } else {
                sql.append(line)
            }
        }
        return (sql.joined(separator: "\n"), bindings)
    }

    /// A parameter's value as `explain` prints it: NULL, a number, or quoted text; any
    /// other word is text.
    public static func binding(_ text: String) -> StoredValue {
        if text.uppercased() == "NULL" { return .null }
        if let i = Int64(text) { return .integer(i) }
        if let d = Double(text) { return .real(d) }
        if text.count >= 2, let first = text.first, first == text.last, first == "\"" || first == "'" {
            return .text(String(text.dropFirst().dropLast()))
        }
        return .text(text)
    }
}

extension StoredValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let i): return i.databaseValue
        case .real(let d): return d.databaseValue
        case .text(let s): return s.databaseValue
        case .blob(let bytes): return Data(bytes).databaseValue
        }
    }
}

public enum QueryError: Error, CustomStringConvertible, Equatable {
    case empty
    case writes
    case parameters(expected: Int, given: Int)
    case sqlite(String)

    public var description: String {
        switch self {
        case .empty: return "no SQL to run"
        case .writes: return "this statement would change the store; sql runs only statements that read"
        case .parameters(let expected, let given):
            return "the statement has \(expected) ? parameter\(expected == 1 ? "" : "s") and \(given) value\(given == 1 ? " was" : "s were") given"
        case .sqlite(let message): return "SQL error: \(message)"
        }
    }
}

import Foundation
import GRDB
import GRDBSQLite

/// What one `sql` statement may spend before SQLite stops it.
public struct QueryLimits: Sendable, Equatable {
    /// Seconds; 0 for none.
    public var seconds: Double
    /// Memory SQLite may take beyond what it held when the statement started; 0 for none.
    public var memoryBytes: Int64
    /// The largest string or blob a statement may make (`SQLITE_LIMIT_LENGTH`).
    public var valueBytes: Int

    public init(seconds: Double = 5, memoryBytes: Int64 = 512 << 20, valueBytes: Int = 64 << 20) {
        self.seconds = seconds
        self.memoryBytes = memoryBytes
        self.valueBytes = valueBytes
    }
}

/// SQL a user types against the store's tables (`sql`): exactly one statement, compiled and
/// run on a `GuardedConnection` of its own, where SQLite refuses anything but reading and
/// stops the statement past its limits. Rows are handed over one at a time, never collected.
public enum ReadOnlyQuery {
    /// Runs `sql` with `bindings` for its `?` parameters; `row` is called per row with the
    /// columns' stored values, and may return false to stop; `columns` gets the names first.
    public static func run(_ sql: String, bindings: [StoredValue], store: PersistentStore, limits: QueryLimits = QueryLimits(),
                           columns: ([String]) -> Void, row: ([StoredValue]) throws -> Bool) throws {
        guard !sql.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw QueryError.empty }
        try Cancellation.check()
        let connection = try GuardedConnection(file: store.file, limits: limits)
        var prepared: OpaquePointer?
        var rest = ""
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(connection.handle, text, -1, &prepared, &tail)
            if let tail { rest = String(cString: tail) }
            return code
        }
        guard code == SQLITE_OK else {
            if let prepared { sqlite3_finalize(prepared) }
            throw connection.failure()
        }
        guard let statement = prepared else { throw QueryError.empty }
        defer { sqlite3_finalize(statement) }
        guard !hasStatement(rest) else { throw QueryError.moreThanOneStatement }
        guard sqlite3_stmt_readonly(statement) != 0 || connection.reportingPragma else { throw QueryError.writes }
        let parameters = Int(sqlite3_bind_parameter_count(statement))
        guard parameters == bindings.count else { throw QueryError.parameters(expected: parameters, given: bindings.count) }
        let reader = ColumnReader(statement)
        do {
            try reader.bind(bindings.map(\.databaseValue), connection: connection.handle)
        } catch let error as DatabaseError {
            throw QueryError.sqlite(error.message ?? "\(error)")
        }
        let count = Int(sqlite3_column_count(statement))
        columns((0..<count).map { sqlite3_column_name(statement, Int32($0)).map { String(cString: $0) } ?? "" })
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return }
            guard step == SQLITE_ROW else { throw connection.failure() }
            try Cancellation.check()
            guard try row((0..<count).map(reader.stored)) else { return }
        }
    }

    /// Whether text after a statement holds another one: anything but white space,
    /// comments and semicolons.
    static func hasStatement(_ text: String) -> Bool {
        var rest = Substring(text)
        while let first = rest.first {
            if first.isWhitespace || first == ";" {
                rest = rest.dropFirst()
            } else if rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if rest.hasPrefix("/*") {
                guard let end = rest.range(of: "*/") else { return false }
                rest = rest[end.upperBound...]
            } else {
                return true
            }
        }
        return false
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
    case moreThanOneStatement
    /// The authorizer refused part of the statement; what, in words.
    case refused(String)
    case parameters(expected: Int, given: Int)
    case timeLimit
    case memoryLimit(bytes: Int64)
    case cancelled
    case sqlite(String)

    public var description: String {
        switch self {
        case .empty: return "no SQL to run"
        case .writes: return "this statement would change the store; sql runs only statements that read"
        case .moreThanOneStatement: return "sql runs one statement at a time, and there is more after the first"
        case .refused(let what): return "sql runs only statements that read, and \(what) is not allowed"
        case .parameters(let expected, let given):
            return "the statement has \(expected) ? parameter\(expected == 1 ? "" : "s") and \(given) value\(given == 1 ? " was" : "s were") given"
        case .timeLimit: return "the statement ran past its time limit and was stopped"
        case .memoryLimit(let bytes): return "the statement needed more than \(bytes >> 20) MB of memory and was stopped"
        case .cancelled: return "the statement was cancelled"
        case .sqlite(let message): return "SQL error: \(message)"
        }
    }
}

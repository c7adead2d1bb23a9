import CSQLiteControls
import Foundation
import GRDB
import GRDBSQLite

/// A connection on which SQLite itself refuses everything but reading, for SQL that comes
/// from a user or an assistant (`sql`, the MCP server). Keyword checks cannot make such SQL
/// safe (a write hides behind `WITH`, a comment, a second statement); SQLite's own controls
/// can, and each holds without the others:
///
/// - the file is opened read-only (`SQLITE_OPEN_READONLY`) and `query_only` is on;
/// - defensive mode is on, the FTS3 tokenizer hook (`fts3_tokenizer`, which hands out and
///   takes raw pointers) and extension loading are off, and the schema is not trusted;
/// - an authorizer allows reading (`SELECT`, `READ`, recursive CTEs), the functions of an
///   allow-list, and pragmas that only report; a transaction, `ATTACH`, a setting, any write
///   is refused while the statement is compiled, before anything runs;
/// - strings and blobs are capped in size, and a progress handler stops a statement past its
///   time or memory limit, or when the user cancels.
///
/// One connection serves one statement and is closed after it, so no setting can outlive it.
final class GuardedConnection {
    let handle: OpaquePointer
    private let guardState: GuardState

    /// What the authorizer and the progress handler read and write.
    final class GuardState {
        var refusal: String?
        /// The statement is a pragma the authorizer let through as reporting: SQLite does
        /// not call such a statement read-only (`PRAGMA journal_mode`), though it only reads.
        var reportingPragma = false
        var deadline: TimeInterval?
        var memoryBaseline: Int64 = 0
        var memoryLimit: Int64 = 0
        var stopped: QueryError?
    }

    init(file: StoreFile, limits: QueryLimits) throws {
        WindowedMappingVFS.install()
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(file.openName, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let opened { sqlite3_close_v2(opened) }
            throw StoreConnection.translate(DatabaseError(resultCode: ResultCode(rawValue: code), message: message), file: file)
        }
        handle = opened
        guardState = GuardState()
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(file.busyTimeout * 1000))
        for (setting, value) in [(cdi_dbconfig_defensive, Int32(1)), (cdi_dbconfig_fts3_tokenizer, 0),
                                 (cdi_dbconfig_load_extension, 0), (cdi_dbconfig_trusted_schema, 0)] {
            _ = cdi_db_config(handle, setting, value)
        }
        sqlite3_exec(handle, "PRAGMA query_only = 1", nil, nil, nil)
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: limits.valueBytes))
        sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0)
        let context = Unmanaged.passUnretained(guardState).toOpaque()
        sqlite3_set_authorizer(handle, GuardedConnection.authorize, context)
        guardState.deadline = limits.seconds > 0 ? ProcessInfo.processInfo.systemUptime + limits.seconds : nil
        guardState.memoryBaseline = sqlite3_memory_used()
        guardState.memoryLimit = limits.memoryBytes
        sqlite3_progress_handler(handle, 1000, GuardedConnection.progress, context)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Why the authorizer refused the statement being compiled, if it did.
    var refusal: String? { guardState.refusal }
    /// Whether the statement compiled is a pragma that only reports.
    var reportingPragma: Bool { guardState.reportingPragma }

    /// Why compiling or stepping the statement failed, as a user should hear it: what the
    /// authorizer refused, the limit that stopped it, or SQLite's own message.
    func failure() -> QueryError {
        if let refusal { return .refused(refusal) }
        if let stopped { return stopped }
        return .sqlite(String(cString: sqlite3_errmsg(handle)))
    }
    /// Which limit stopped the statement, if one did.
    var stopped: QueryError? { guardState.stopped }

    // MARK: The authorizer

    private static let authorize: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                                  UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32 = { context, action, first, second, _, _ in
        let text = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } }
        guard let context else { return SQLITE_DENY }
        let state = Unmanaged<GuardState>.fromOpaque(context).takeUnretainedValue()
        if let refusal = GuardedConnection.verdict(action, text(first), text(second)) {
            if state.refusal == nil { state.refusal = refusal }
            return SQLITE_DENY
        }
        if action == SQLITE_PRAGMA { state.reportingPragma = true }
        return SQLITE_OK
    }

    /// nil to allow; else what is refused, in words.
    static func verdict(_ action: Int32, _ first: String?, _ second: String?) -> String? {
        switch action {
        case SQLITE_SELECT, SQLITE_READ, SQLITE_RECURSIVE:
            return nil
        case SQLITE_FUNCTION:
            let name = (second ?? "").lowercased()
            return allowedFunctions.contains(name) ? nil : "the function \(name)()"
        case SQLITE_PRAGMA:
            let name = (first ?? "").lowercased()
            if second == nil, reportingPragmas.contains(name) { return nil }
            if second != nil, tablePragmas.contains(name) { return nil }
            return second == nil ? "PRAGMA \(name)" : "PRAGMA \(name) with a value"
        case SQLITE_UPDATE where first?.lowercased() == "sqlite_master" && second != nil:
            // Reading an eponymous virtual table (`pragma_table_info(…)`, `json_each(…)`)
            // registers it, which SQLite authorizes as an update of the schema table; the
            // statement stays read-only, and a real one is refused by its read-only flag,
            // the read-only open, query_only and defensive mode.
            return nil
        case SQLITE_TRANSACTION, SQLITE_SAVEPOINT: return "transaction control (BEGIN, COMMIT, SAVEPOINT…)"
        case SQLITE_ATTACH, SQLITE_DETACH: return "ATTACH and DETACH"
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE: return "a statement that changes rows"
        default: return "a statement that changes the schema or the database"
        }
    }

    /// Functions that compute from their arguments and read nothing but them.
    static let allowedFunctions: Set<String> = [
        "abs", "changes", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex", "ifnull", "iif", "if", "instr",
        "last_insert_rowid", "length", "like", "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif",
        "octet_length", "printf", "quote", "random", "randomblob", "replace", "round", "rtrim", "sign", "soundex",
        "sqlite_version", "substr", "substring", "total_changes", "trim", "typeof", "unhex", "unicode", "unlikely", "upper",
        "zeroblob", "avg", "count", "group_concat", "string_agg", "sum", "total",
        "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff",
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees", "exp",
        "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians", "sin", "sinh", "sqrt", "tan", "tanh",
        "trunc",
        "json", "jsonb", "json_array", "jsonb_array", "json_array_length", "json_extract", "jsonb_extract", "json_insert",
        "jsonb_insert", "json_object", "jsonb_object", "json_patch", "jsonb_patch", "json_quote", "json_remove",
        "jsonb_remove", "json_replace", "jsonb_replace", "json_set", "jsonb_set", "json_type", "json_valid",
        "json_group_array", "jsonb_group_array", "json_group_object", "jsonb_group_object", "json_error_position",
        "json_pretty", "json_each", "json_tree",
        "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
        "last_value", "nth_value",
        "match", "highlight", "snippet", "offsets", "matchinfo", "bm25",
    ]

    /// Pragmas that, with no value, only report.
    static let reportingPragmas: Set<String> = [
        "application_id", "auto_vacuum", "collation_list", "compile_options", "database_list", "encoding",
        "foreign_key_check", "freelist_count", "function_list", "integrity_check", "journal_mode", "module_list",
        "page_count", "page_size", "pragma_list", "quick_check", "schema_version", "table_list", "user_version",
    ]

    /// Pragmas that take a table or index name and report on it.
    static let tablePragmas: Set<String> = [
        "foreign_key_list", "index_info", "index_list", "index_xinfo", "table_info", "table_list", "table_xinfo",
    ]

    // MARK: Limits

    private static let progress: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
        guard let context else { return 0 }
        let state = Unmanaged<GuardState>.fromOpaque(context).takeUnretainedValue()
        if Cancellation.isRequested {
            state.stopped = .cancelled
            return 1
        }
        if let deadline = state.deadline, ProcessInfo.processInfo.systemUptime > deadline {
            state.stopped = .timeLimit
            return 1
        }
        if state.memoryLimit > 0, sqlite3_memory_used() - state.memoryBaseline > state.memoryLimit {
            state.stopped = .memoryLimit(bytes: state.memoryLimit)
            return 1
        }
        return 0
    }
}


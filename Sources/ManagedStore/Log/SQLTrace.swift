import Foundation
import GRDBSQLite

/// SQLite's trace hook, attached to every connection the store opens when a debug log
/// exists. SQLite calls it as each statement starts, with the statement's own text, so the
/// log shows exactly what ran, including what GRDB and SQLite run on the tool's behalf
/// (transactions, pragmas). Timings come from the code that runs a fetch, count, save or
/// batch request, which knows what the statement was for and how many rows it gave.
enum SQLTrace {
    static func attach(_ log: SQLDebugLog, to connection: OpaquePointer) {
        // The log lives as long as the process: each traced connection keeps it retained,
        // since SQLite gives no hook at close to release it.
        let context = Unmanaged.passRetained(log).toOpaque()
        sqlite3_trace_v2(connection, UInt32(SQLITE_TRACE_STMT), { _, context, p, x in
            guard let context, let p, let x else { return 0 }
            let log = Unmanaged<SQLDebugLog>.fromOpaque(context).takeUnretainedValue()
            guard log.shows(1), !log.isExplaining else { return 0 }
            let text = String(cString: x.assumingMemoryBound(to: CChar.self))
            // Statements inside triggers come through as `-- TRIGGER name`; Core Data's log
            // leaves them out, and so does this one.
            if !text.hasPrefix("--") { log.traced(OpaquePointer(p), text: text) }
            return 0
        }, context)
    }

    static func firstWord(_ sql: String) -> String {
        String(sql.drop { $0 == " " || $0 == "\n" || $0 == "(" }.prefix { $0.isLetter }).uppercased()
    }
}

extension SQLDebugLog {
    /// A statement starting: its text, its bound values at level 2, its plan at level 4.
    func traced(_ statement: OpaquePointer, text: String) {
        sql(text)
        if shows(2), sqlite3_bind_parameter_count(statement) > 0 {
            let expanded = sqlite3_expanded_sql(statement)
            defer { sqlite3_free(expanded) }
            if let expanded, let values = BoundValueText.values(sql: text, expanded: String(cString: expanded)) {
                for (i, value) in values.enumerated() { details("SQLite bind[\(i)] = \(value)") }
            }
        }
        if shows(4), ["SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "REPLACE"].contains(SQLTrace.firstWord(text)) {
            explain(text, on: sqlite3_db_handle(statement))
        }
    }

    /// `EXPLAIN QUERY PLAN` of the statement about to run, on its own connection; the
    /// trace is muted meanwhile so the plan's own statement does not log itself.
    private func explain(_ text: String, on connection: OpaquePointer?) {
        details("SQLite: EXPLAIN QUERY PLAN " + text)
        var plan: OpaquePointer?
        isExplaining = true
        defer { isExplaining = false; sqlite3_finalize(plan) }
        guard sqlite3_prepare_v2(connection, "EXPLAIN QUERY PLAN " + text, -1, &plan, nil) == SQLITE_OK, let plan else { return }
        while sqlite3_step(plan) == SQLITE_ROW {
            let detail = sqlite3_column_text(plan, 3).map { String(cString: $0) } ?? ""
            details("\(sqlite3_column_int64(plan, 0)) \(sqlite3_column_int64(plan, 1)) \(sqlite3_column_int64(plan, 2)) \(detail)")
        }
    }
}

import Foundation

/// Core Data's `-com.apple.CoreData.SQLDebug N` log: the SQL every connection runs and the
/// annotations around it, in Core Data's line format, sent to a sink (stderr in the tool).
///
/// The `sql:` lines, bind values and query plans come from SQLite's own trace hook on every
/// connection the store opens (`SQLTrace`), so what is shown is what SQLite executed, with
/// nothing reconstructed. The layers that know what a statement was for (a fetch, a count, a
/// fault, a batch request) add the timing and row annotations.
///
/// The level can change while a session runs (`sqldebug N`), so connections opened at level
/// 0 are traced too and the hook returns at once until the level rises.
///
/// Sendable because GRDB's connection set-up closure, which attaches the trace hook, must be;
/// unchecked because the level and the flag are plain variables. That is safe as used: the
/// hook runs on a connection's queue only inside a synchronous `read` or `write`, while the
/// thread that changes the level (between commands) waits for it, so no two run at once.
public final class SQLDebugLog: @unchecked Sendable {
    /// 0 off; 1 SQL and timings; 2 adds bind values and the statement summary; 3 adds row
    /// values; 4 adds the query plan.
    public var level: Int
    private let sink: (String) -> Void
    /// Set while the log runs a query plan, whose own statement must not be traced.
    var isExplaining = false

    public init(level: Int, sink: @escaping (String) -> Void) {
        self.level = level
        self.sink = sink
    }

    public static let levels = 0...4

    /// Whether lines of `level` are written now.
    @inline(__always) public func shows(_ level: Int) -> Bool { self.level >= level }

    func sql(_ text: String) { sink("CoreData: sql: " + text) }
    func annotation(_ text: String) { sink("CoreData: annotation: " + text) }
    func details(_ text: String) { sink("CoreData: details: " + text) }

    /// Seconds as Core Data prints them (`0.0012s`).
    static func seconds(_ interval: TimeInterval) -> String {
        String(format: "%.4fs", interval)
    }
}

/// Times one piece of work for its annotation; taken only when the log is on, so a fetch
/// with the log off reads no clock.
struct SQLTimer {
    private let start: UInt64

    init() { start = DispatchTime.now().uptimeNanoseconds }

    var elapsed: TimeInterval { TimeInterval(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
}

extension SQLDebugLog {
    /// A fetch's closing lines: `sql connection fetch time` when the last row was read,
    /// then, at level 2, Core Data's statement summary, and the total.
    func fetched(rows: Int, entity: String, sql: String, statement: OpaquePointer?, stepping: TimeInterval, total: TimeInterval) {
        guard shows(1) else { return }
        annotation("sql connection fetch time: " + SQLDebugLog.seconds(stepping))
        if shows(2) {
            let address = statement.map { String(format: "%p", Int(bitPattern: UnsafeRawPointer($0))) } ?? "0x0"
            annotation("fetch using NSSQLiteStatement <\(address)> on entity '\(entity)' with sql text '\(sql) ' returned \(rows) rows")
        }
        annotation("total fetch execution time: \(SQLDebugLog.seconds(total)) for \(rows) rows.")
    }

    func counted(_ count: Int, time: TimeInterval) {
        guard shows(1) else { return }
        annotation("total count request execution time: \(SQLDebugLog.seconds(time)) for count of \(count).")
    }

    /// After a statement that changes rows (a save's or a batch request's).
    func executed(time: TimeInterval) {
        guard shows(1) else { return }
        annotation("sql execution time: " + SQLDebugLog.seconds(time))
    }
}

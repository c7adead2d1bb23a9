import Foundation
import GRDB
import GRDBSQLite

/// The SQL functions compiled predicates call. Core Data registers its own on its
/// connection (`NSCoreDataLike`, `NSCoreDataStringSearch`, …); these are the stand-ins,
/// Unicode-aware where SQLite's built-ins fold ASCII only. Every connection that runs a
/// compiled predicate registers them.
///
/// They are registered through the C API rather than GRDB's `DatabaseFunction`, which
/// reads and returns text as C strings: a value holding a NUL byte must stay whole.
public enum PredicateFunctions {
    public static func register(_ db: Database) {
        let connection = db.sqliteConnection
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(connection, "cdi_fold", 2, flags, nil, fold, nil, nil, nil)
        sqlite3_create_function_v2(connection, "cdi_search", 4, flags, nil, search, nil, nil, nil)
        sqlite3_create_function_v2(connection, "cdi_like", 3, flags, nil, like, nil, nil, nil)
        sqlite3_create_function_v2(connection, "cdi_matches", 3, flags, nil, matches, nil, nil, nil)
        sqlite3_create_function_v2(connection, "cdi_power", 2, flags, nil, power, nil, nil, nil)
        sqlite3_create_function_v2(connection, "cdi_math", 2, flags, nil, math, nil, nil, nil)
    }

    typealias Arguments = UnsafeMutablePointer<OpaquePointer?>?

    /// Text of an argument, with its length (NUL bytes included); nil unless it is text.
    static func text(_ argv: Arguments, _ i: Int) -> String? {
        guard let value = argv?[i], sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        guard let bytes = sqlite3_value_text(value) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    static func integer(_ argv: Arguments, _ i: Int) -> Int { Int(sqlite3_value_int64(argv![i])) }

    static func number(_ argv: Arguments, _ i: Int) -> Double? {
        guard let value = argv?[i] else { return nil }
        let type = sqlite3_value_type(value)
        guard type == SQLITE_INTEGER || type == SQLITE_FLOAT else { return nil }
        return sqlite3_value_double(value)
    }

    static func options(_ argv: Arguments, _ i: Int) -> ComparisonOptions { ComparisonOptions(rawValue: integer(argv, i)) }

    static func result(_ context: OpaquePointer?, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            let count = Int32(bytes.count)
            if count == 0 {
                sqlite3_result_text(context, "", 0, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            } else {
                bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_result_text(context, $0, count, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                }
            }
        }
    }

    static func result(_ context: OpaquePointer?, _ b: Bool?) {
        guard let b else { return sqlite3_result_null(context) }
        sqlite3_result_int64(context, b ? 1 : 0)
    }

    static func result(_ context: OpaquePointer?, _ d: Double?) {
        guard let d, d.isFinite else { return sqlite3_result_null(context) }
        sqlite3_result_double(context, d)
    }

    /// `cdi_fold(value, options)`: `[c]`/`[d]` folding of text; other values pass through,
    /// so that options on a number comparison are ignored, as Foundation ignores them.
    static let fold: @convention(c) (OpaquePointer?, Int32, Arguments) -> Void = { context, _, argv in
        guard let s = text(argv, 0) else { return sqlite3_result_value(context, argv?[0]) }
        result(context, StringMatching.fold(s, options(argv, 1)))
    }

    /// `cdi_search(haystack, needle, mode, options)`: CONTAINS (0), BEGINSWITH (1), ENDSWITH (2).
    static let search: @convention(c) (OpaquePointer?, Int32, Arguments) -> Void = { context, _, argv in
        guard let h = text(argv, 0), let n = text(argv, 1) else { return sqlite3_result_null(context) }
        let mode = StringMatching.SearchMode(rawValue: integer(argv, 2)) ?? .contains
        let options = options(argv, 3)
        let needle = prepared(context, argument: 1, options: options) { StringMatching.scalars(n, options) }
        result(context, StringMatching.search(h, folded: needle, mode, options))
    }

    /// `cdi_like(text, pattern, options)`: NSPredicate LIKE (`*`, `?`, `\`), whole string.
    static let like: @convention(c) (OpaquePointer?, Int32, Arguments) -> Void = { context, _, argv in
        guard let t = text(argv, 0), let p = text(argv, 1) else { return sqlite3_result_null(context) }
        let options = options(argv, 2)
        let pattern = prepared(context, argument: 1, options: options) { StringMatching.LikePattern(p, options) }
        result(context, pattern.matches(t, options))
    }

    /// What a function makes of one of its arguments (a folded needle, a parsed pattern),
    /// made once per statement while the argument is the same for every row, as it is when
    /// it comes from the predicate: SQLite keeps it with the argument (`sqlite3_set_auxdata`)
    /// and drops it when the argument changes. Folding a long pattern for every row made a
    /// `[cd]` comparison cost the pattern's length times the rows.
    static func prepared<Value>(_ context: OpaquePointer?, argument: Int32, options: ComparisonOptions,
                                _ make: () -> Value) -> Value {
        if let raw = sqlite3_get_auxdata(context, argument) {
            let kept = Unmanaged<PreparedArgument<Value>>.fromOpaque(raw).takeUnretainedValue()
            if kept.options == options { return kept.value }
        }
        let value = make()
        let kept = PreparedArgument(value: value, options: options)
        sqlite3_set_auxdata(context, argument, Unmanaged.passRetained(kept).toOpaque(), releasePrepared)
        return value
    }

    static let releasePrepared: @convention(c) (UnsafeMutableRawPointer?) -> Void = { raw in
        guard let raw else { return }
        Unmanaged<AnyObject>.fromOpaque(raw).release()
    }

    /// `cdi_matches(text, regex, options)`: MATCHES, an ICU regular expression.
    static let matches: @convention(c) (OpaquePointer?, Int32, Arguments) -> Void = { context, _, argv in
        guard let t = text(argv, 0), let p = text(argv, 1) else { return sqlite3_result_null(context) }
        guard let matched = StringMatching.matches(t, p, options(argv, 2)) else {
            return sqlite3_result_error(context, "invalid regular expression for MATCHES", -1)
        }
        result(context, matched)
    }

    static let power: @convention(c) (OpaquePointer?, Int32, Arguments) -> Void = { context, _, argv in
        guard let a = number(argv, 0), let b = number(argv, 1) else { return sqlite3_result_null(context) }
        result(context, Foundation.pow(a, b))
    }

    /// `cdi_math(name, x)` for the predicate functions sqrt, log, ln, exp, floor, ceiling, trunc.
    static let math: @convention(c) (OpaquePointer?, Int32, Arguments) -> Void = { context, _, argv in
        guard let name = text(argv, 0), let x = number(argv, 1) else { return sqlite3_result_null(context) }
        switch name {
        case "sqrt": result(context, x.squareRoot())
        case "log": result(context, Foundation.log10(x))
        case "ln": result(context, Foundation.log(x))
        case "exp": result(context, Foundation.exp(x))
        case "floor": result(context, x.rounded(.down))
        case "ceiling": result(context, x.rounded(.up))
        case "trunc": result(context, x.rounded(.towardZero))
        default: sqlite3_result_null(context)
        }
    }
}

/// A prepared argument kept by SQLite between rows, with the options it was folded under.
final class PreparedArgument<Value> {
    let value: Value
    let options: ComparisonOptions

    init(value: Value, options: ComparisonOptions) {
        self.value = value
        self.options = options
    }
}

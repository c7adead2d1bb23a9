import Foundation
import GRDB
import GRDBSQLite

/// What a value must be for an attribute to hold it: the SQLite storage class its type
/// maps to, Core Data's bounds for Integer 16/32/64 and Float, 0 or 1 for a Boolean, and
/// a value at all when the attribute is not optional. Constants are checked in Swift
/// before a statement is built; computed values (`year = year * 1000`) only exist row by
/// row, so `StoredValueCheck` checks them inside the statement.
struct StoredValueRule: Sendable {
    let attribute: AttributeDescription

    /// Why `value`, as SQLite would store it, cannot be the attribute's value; nil when it can.
    func violation(_ value: StoredValue) -> String? {
        let type = attribute.type
        switch value {
        case .null:
            return attribute.isOptional ? nil : "\(attribute.name) is not optional, so it cannot be nil"
        case .integer(let i):
            if let range = type.integerRange, !range.contains(i) { return outOfRange(String(i)) }
            if type == .boolean, i != 0 && i != 1 { return notBoolean(String(i)) }
            if type == .float, !fitsFloat(Double(i)) { return outOfRange(String(i)) }
            return type.isNumeric || type == .date || type == .undefined ? nil : wrongKind("a number")
        case .real(let d):
            if let range = type.integerRange {
                guard d.isFinite else { return outOfRange(format(d)) }
                guard d.rounded() == d else { return "\(format(d)) is not a whole number, and \(attribute.name) is \(type.withArticle)" }
                // Double(Int64.max) rounds up to 2^63, which no Int64 holds.
                let fits = d >= Double(range.lowerBound)
                    && (range.upperBound == Int64.max ? d < -Double(Int64.min) : d <= Double(range.upperBound))
                return fits ? nil : outOfRange(format(d))
            }
            if type == .boolean, d != 0 && d != 1 { return notBoolean(format(d)) }
            if !d.isFinite && type != .double && type != .undefined { return outOfRange(format(d)) }
            if type == .float, !fitsFloat(d) { return outOfRange(format(d)) }
            return type.isNumeric || type == .date || type == .undefined ? nil : wrongKind("a number")
        case .text:
            return type == .string || type == .uri || type == .undefined ? nil : wrongKind("text")
        case .blob:
            return [.binaryData, .transformable, .codable, .uuid, .undefined].contains(type) ? nil : wrongKind("binary data")
        }
    }

    /// The integers `violation` passes for this attribute, as one range (nil: none, or not
    /// one range): the same answers, reached without building a value.
    var integersThatFit: ClosedRange<Int64>? {
        let type = attribute.type
        if let range = type.integerRange { return range }
        if type == .boolean { return 0...1 }
        // Every Int64 is finite and within a Float's range.
        return type.isNumeric || type == .date || type == .undefined ? Int64.min...Int64.max : nil
    }

    private func fitsFloat(_ d: Double) -> Bool {
        !d.isFinite || abs(d) <= Double(Float.greatestFiniteMagnitude)
    }

    private func outOfRange(_ value: String) -> String {
        let bounds: String
        if let range = attribute.type.integerRange {
            bounds = " (\(range.lowerBound)…\(range.upperBound))"
        } else if attribute.type == .float {
            bounds = " (±\(Float.greatestFiniteMagnitude))"
        } else {
            bounds = " (only a Double holds infinity)"
        }
        return "\(value) does not fit \(attribute.type.withArticle)\(bounds)"
    }

    private func notBoolean(_ value: String) -> String {
        "\(value) is not a Boolean: \(attribute.name) holds 0 or 1 (NO or YES)"
    }

    private func wrongKind(_ kind: String) -> String {
        "\(kind) does not fit \(attribute.type.withArticle)"
    }

    private func format(_ d: Double) -> String {
        d.isFinite ? "\(d)" : (d > 0 ? "infinity" : "-infinity")
    }
}

/// The SQL function `cdi_check(value, slot, Z_PK, Z_ENT)` and the read-only pass a batch
/// update runs with it before its `UPDATE`, in the same exclusive transaction: the pass
/// computes each value on every row the update will change and stops at the first that does
/// not fit its attribute, so a batch update that fails has written nothing. It remembers
/// the failure as a typed error, because SQLite's error text is only a string.
///
/// Why a pass of its own, not the function inside the `UPDATE`: SQLite gives an `UPDATE`
/// that calls a function in an open transaction a statement journal, a temporary file
/// holding the original of every page the statement changes (the size of the table), and a
/// statement that fails half-way has already spilled its changed pages into the `-wal`,
/// which stays that large after the rollback. The pass reads the rows once more instead
/// (Benchmarks/README.md, "The batch update's check
/// pass").
final class StoredValueCheck: @unchecked Sendable {
    struct Slot {
        let entity: String
        let expression: String
        let rule: StoredValueRule
        /// The integers that fit with nothing more to check: the call SQLite makes on every
        /// row of a numeric batch update takes only this range test, without building a value.
        let integersThatFit: ClosedRange<Int64>?
    }

    private var slots: [Slot] = []
    private let entityName: (Int) -> String?
    /// The first value that did not fit; set by SQLite's call of the function, read after
    /// the statement stopped.
    private(set) var failure: ContextError?

    init(entityName: @escaping (Int) -> String?) { self.entityName = entityName }

    /// The values the pass computes: each one's fragment over `t0`, in slot order.
    private var values: [SQLFragment] = []

    /// Checks `value` for `attribute` on each row of `entity`'s table (as `t0`) in the pass;
    /// returns `value`, for the `UPDATE` to set as it is.
    func add(_ value: SQLFragment, expression: String, attribute: AttributeDescription,
             entity: EntityMapping) -> SQLFragment {
        let rule = StoredValueRule(attribute: attribute)
        slots.append(Slot(entity: entity.name, expression: expression, rule: rule, integersThatFit: rule.integersThatFit))
        let entityColumn = entity.entityColumn.map { "t0." + SQL.identifier($0) } ?? String(entity.entityID ?? 0)
        values.append(SQLFragment("count(cdi_check(") + value + SQLFragment(", \(slots.count - 1), t0.Z_PK, \(entityColumn)))"))
        return value
    }

    /// The pass over `table`'s rows that satisfy `condition` (nil: every row): one aggregate
    /// per value, so SQLite steps through the rows without handing any back.
    func pass(table: String, condition: SQLFragment?) -> SQLFragment {
        var query = "SELECT " + SQLFragment.joined(values, separator: ", ") + " FROM \(table) AS t0"
        if let condition { query = query + " WHERE " + condition }
        return query
    }

    var isEmpty: Bool { slots.isEmpty }

    /// Makes `cdi_check` call this check on `db`; the connection keeps it alive until the
    /// next registration replaces it.
    func register(_ db: Database) {
        let pointer = Unmanaged.passRetained(self).toOpaque()
        sqlite3_create_function_v2(db.sqliteConnection, "cdi_check", 4, SQLITE_UTF8, pointer, StoredValueCheck.call, nil, nil,
                                   { pointer in if let pointer { Unmanaged<StoredValueCheck>.fromOpaque(pointer).release() } })
    }

    private static let call: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, argv in
        guard let pointer = sqlite3_user_data(context), let argv else { return sqlite3_result_null(context) }
        let check = Unmanaged<StoredValueCheck>.fromOpaque(pointer).takeUnretainedValue()
        let slotIndex = Int(sqlite3_value_int64(argv[1]))
        guard check.slots.indices.contains(slotIndex) else { return sqlite3_result_error(context, "cdi_check: no such value", -1) }
        if sqlite3_value_type(argv[0]) == SQLITE_INTEGER, let fit = check.slots[slotIndex].integersThatFit,
           fit.contains(sqlite3_value_int64(argv[0])) {
            return sqlite3_result_value(context, argv[0])
        }
        let slot = check.slots[slotIndex]
        let value = StoredValue(sqliteValue: argv[0])
        guard let why = slot.rule.violation(value) else { return sqlite3_result_value(context, argv[0]) }
        let entity = check.entityName(Int(sqlite3_value_int64(argv[3]))) ?? slot.entity
        let object = "\(entity)/p\(sqlite3_value_int64(argv[2]))"
        check.failure = .badValue(entity: slot.entity, key: slot.rule.attribute.name,
                                  why: "\(slot.expression) fails for \(object): \(why); nothing was changed")
        sqlite3_result_error(context, "a computed value does not fit its attribute", -1)
    }
}

extension StoredValue {
    /// A value of a SQL function's argument, as its storage class holds it.
    init(sqliteValue value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes = sqlite3_value_text(value) else { self = .text(""); return }
            self = .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes = sqlite3_value_blob(value) else { self = .blob([]); return }
            self = .blob([UInt8](UnsafeRawBufferPointer(start: bytes, count: count)))
        default: self = .null
        }
    }
}

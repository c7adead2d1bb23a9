import Foundation
import GRDB

/// Comparing two operands in SQL: the options, folding, object IDs against keys.
extension PredicateCompiler {
    /// Why comparing an attribute with a constant of another type answers what it does: the
    /// comparison is made as Core Data's SQL makes it (a date column against text matches
    /// nothing; a number column against text is compared as SQLite's affinity says), and the
    /// warning says what to write instead. nil where the types agree.
    func mismatch(_ attribute: SQLOperand, _ value: SQLOperand) -> String? {
        guard let name = attribute.attribute, case .string(let text)? = value.constant else { return nil }
        switch attribute.type {
        case .date:
            let seconds = ValueParsing.parseDate(text)
            let cast = seconds.map { "CAST(" + String(format: "%.3f", $0) + ", \"NSDate\")" } ?? "CAST(SECONDS, \"NSDate\") with seconds since 2001-01-01"
            return "\(name) is a date, stored as seconds since 2001-01-01: compared with the text \"\(text)\" it matches nothing, "
                + "as in the app. Give it as a date for a %@ (an ISO 8601 \(seconds == nil ? "2025-08-01T00:00:00Z" : text) without quotes), or write " + cast
        case .number:
            return "\(name) is a number: compared with the text \"\(text)\", the store's SQL compares it as a number where the text "
                + "reads as one (the app's fetch does the same; in memory, Core Data would match nothing). Write it without quotes"
        default:
            return nil
        }
    }

    func compare(_ l: SQLOperand, _ op: ComparisonOperator, _ r: SQLOperand, _ options: ComparisonOptions, at position: Int) throws -> SQLFragment {
        var left = l, right = r
        if let json = left.json ?? right.json, ![.equal, .notEqual].contains(op) {
            throw error("\(json) holds JSON (SwiftData's encoding of an array or a Codable value), which the store cannot compare "
                        + "inside: \(op.rawValue) would test its bytes. Test it with == nil or != nil, or fetch it and look inside", at: position)
        }
        try coerceObjectIDs(&left, &right, at: position)
        try coerceObjectIDs(&right, &left, at: position)
        let folding = options.folding
        switch op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            if op == .equal || op == .notEqual {
                let nullTest = op == .equal ? " IS NULL" : " IS NOT NULL"
                if left.constant == .null && right.constant == .null { return op == .equal ? "1" : "0" }
                if right.constant == .null { return left.fragment + nullTest }
                if left.constant == .null { return right.fragment + nullTest }
            }
            if left.type == .array || right.type == .array {
                throw error("a collection cannot be compared with \(op.rawValue); use IN", at: position)
            }
            if let why = mismatch(left, right) ?? mismatch(right, left) { warn(why) }
            let sqlOp = [ComparisonOperator.equal: "=", .notEqual: "<>", .less: "<", .lessOrEqual: "<=", .greater: ">", .greaterOrEqual: ">="][op]!
            return folded(left, folding) + " \(sqlOp) " + folded(right, folding)
        case .between:
            guard case .array(let bounds)? = right.constant, bounds.count == 2 else {
                throw error("BETWEEN needs two bounds, as in {low, high}", at: position)
            }
            for bound in bounds { if let why = mismatch(left, constant(bound)) { warn(why) } }
            return left.fragment + " BETWEEN " + constant(bounds[0]).fragment + " AND " + constant(bounds[1]).fragment
        case .in:
            if case .array(let items)? = right.constant {
                if items.isEmpty { return "0" }
                let list = items.map { folded(constant($0), folding) }
                return folded(left, folding) + " IN (" + SQLFragment.joined(list, separator: ", ") + ")"
            }
            if right.type == .array, let list = right.list {
                return left.fragment + " IN (" + SQLFragment.joined(list, separator: ", ") + ")"
            }
            guard right.type == .string || right.type == .unknown else {
                throw error("IN needs a collection on its right ({…}, %@ with an array, or a to-many key path)", at: position)
            }
            return "cdi_search(" + right.fragment + ", " + left.fragment + ", 0, \(folding.rawValue))"
        case .contains:
            if case .array(let items)? = left.constant {
                if items.isEmpty { return "0" }
                let list = items.map { folded(constant($0), folding) }
                return folded(right, folding) + " IN (" + SQLFragment.joined(list, separator: ", ") + ")"
            }
            return "cdi_search(" + left.fragment + ", " + right.fragment + ", 0, \(folding.rawValue))"
        case .beginsWith:
            return "cdi_search(" + left.fragment + ", " + right.fragment + ", 1, \(folding.rawValue))"
        case .endsWith:
            return "cdi_search(" + left.fragment + ", " + right.fragment + ", 2, \(folding.rawValue))"
        case .like:
            return "cdi_like(" + left.fragment + ", " + right.fragment + ", \(folding.rawValue))"
        case .matches:
            if case .string(let pattern)? = right.constant, StringMatching.matches("", pattern, folding) == nil {
                throw error("invalid regular expression for MATCHES: \(pattern)", at: position)
            }
            return "cdi_matches(" + left.fragment + ", " + right.fragment + ", \(folding.rawValue))"
        case .utiConformsTo, .utiEquals:
            throw error("\(op.rawValue) is a Spotlight operator; the SQLite store cannot evaluate it", at: position)
        }
    }

    /// `[c]`/`[d]` folding of one side: a constant is folded here, a column by `cdi_fold`.
    /// Values that are not text pass through, so options on numbers are ignored.
    func folded(_ o: SQLOperand, _ folding: ComparisonOptions) -> SQLFragment {
        guard !folding.isEmpty, o.type == .string || o.type == .unknown else { return o.fragment }
        if case .string(let s)? = o.constant { return .bind(StringMatching.fold(s, folding).databaseValue) }
        return "cdi_fold(" + o.fragment + ", \(folding.rawValue))"
    }

    /// A string constant compared with a relationship or SELF is an object ID
    /// (`x-coredata://…/Person/p3` or `Person/p3`); it compares as the primary key.
    func coerceObjectIDs(_ object: inout SQLOperand, _ other: inout SQLOperand, at position: Int) throws {
        guard case .object(let entityName) = object.type else { return }
        func key(_ value: PredicateValue) throws -> PredicateValue {
            switch value {
            case .null: return .null
            case .integer: return value
            case .string(let s):
                guard let id = ObjectID.parse(s) else {
                    throw error("'\(s)' is not an object ID (write Entity/pN or x-coredata://UUID/Entity/pN)", at: position)
                }
                guard let target = mapping.entity(named: id.entityName), let destination = mapping.entity(named: entityName),
                      destination.entityIDs.contains(target.entityID ?? -1) || target.name == destination.name else {
                    throw error("\(s) is not a \(entityName)", at: position)
                }
                return .integer(id.primaryKey)
            case .array(let items): return .array(try items.map(key))
            default:
                throw error("a \(entityName) object can only be compared with an object ID or nil", at: position)
            }
        }
        guard let value = other.constant else { return }
        let converted = try key(value)
        other = constant(converted)
    }
}

import Foundation
import GRDB

/// Operands: constants, key paths and functions as SQL values.
extension PredicateCompiler {
    enum ValueType: Equatable {
        case string, number, date, blob, null, array, unknown
        case object(String)
    }

    struct SQLOperand {
        var fragment: SQLFragment
        var type: ValueType
        var constant: PredicateValue?
        /// The items of a `{…}` holding expressions.
        var list: [SQLFragment]?
        /// The key path of an attribute that holds SwiftData's JSON: its column is bytes of
        /// JSON text, which SQL compares whole and never inside.
        var json: String? = nil
        /// The entity and attribute an attribute's key path ends at (`Person.birthday`), for a
        /// warning that names it.
        var attribute: String? = nil
    }

    func constant(_ value: PredicateValue) -> SQLOperand {
        switch value {
        case .null: return SQLOperand(fragment: .bind(.null), type: .null, constant: value)
        case .bool(let b): return SQLOperand(fragment: .bind((b ? 1 : 0).databaseValue), type: .number, constant: value)
        case .integer(let i): return SQLOperand(fragment: .bind(i.databaseValue), type: .number, constant: value)
        case .double(let d): return SQLOperand(fragment: .bind(d.databaseValue), type: .number, constant: value)
        case .string(let s): return SQLOperand(fragment: .bind(s.databaseValue), type: .string, constant: value)
        case .date(let d): return SQLOperand(fragment: .bind(d.databaseValue), type: .date, constant: value)
        case .array(let items):
            let list = items.map { constant($0).fragment }
            return SQLOperand(fragment: "(" + SQLFragment.joined(list, separator: ", ") + ")", type: .array, constant: value, list: list)
        }
    }

    func operand(_ e: PredicateOperand, _ ctx: Context) throws -> SQLOperand {
        switch e.kind {
        case .constant(let value):
            return constant(value)
        case .evaluatedObject:
            return SQLOperand(fragment: SQLFragment(ctx.scope.primaryKey), type: .object(ctx.scope.entity.name))
        case .variable(let name):
            guard let scope = ctx.variables[name] else {
                throw missingVariable(name, at: e.position)
            }
            return SQLOperand(fragment: SQLFragment(scope.primaryKey), type: .object(scope.entity.name))
        case .keyPath:
            return try keyPath(e, ctx)
        case .aggregate(let items):
            let list = try items.map { try operand($0, ctx).fragment }
            return SQLOperand(fragment: "(" + SQLFragment.joined(list, separator: ", ") + ")", type: .array, list: list)
        case .arithmetic(let op, let a, let b):
            let x = try operand(a, ctx), y = try operand(b, ctx)
            switch op {
            case .divide: return SQLOperand(fragment: "(CAST(" + x.fragment + " AS REAL) / " + y.fragment + ")", type: .number)
            case .power: return SQLOperand(fragment: "cdi_power(" + x.fragment + ", " + y.fragment + ")", type: .number)
            default: return SQLOperand(fragment: "(" + x.fragment + " \(op.rawValue) " + y.fragment + ")", type: x.type == .date ? .date : .number)
            }
        case .negate(let a):
            return SQLOperand(fragment: "(- " + (try operand(a, ctx)).fragment + ")", type: .number)
        case .function(let name, let arguments):
            return try function(name, arguments, at: e.position, ctx)
        case .cast(let value, let type):
            let inner = try operand(value, ctx)
            switch type {
            case "NSDate": return SQLOperand(fragment: inner.fragment, type: .date)
            case "NSNumber": return SQLOperand(fragment: "CAST(" + inner.fragment + " AS REAL)", type: .number)
            case "NSString": return SQLOperand(fragment: "CAST(" + inner.fragment + " AS TEXT)", type: .string)
            default: throw error("CAST to \(type) is not supported (NSDate, NSNumber and NSString are)", at: e.position)
            }
        case .index(let base, .size):
            return try keyPath(PredicateOperand(.keyPath(base, "@count"), at: e.position), ctx)
        case .index:
            throw error("[FIRST], [LAST] and [n] are not supported by the SQLite store; use SUBQUERY or @count", at: e.position)
        case .selectorCall(_, let selector, _):
            throw error("FUNCTION(…, '\(selector)') calls a method; the SQLite store cannot run it", at: e.position)
        case .subquery:
            throw error("SUBQUERY(…) must be followed by .@count here", at: e.position)
        }
    }

    func function(_ name: String, _ arguments: [PredicateOperand], at position: Int, _ ctx: Context) throws -> SQLOperand {
        if name == "now" {
            guard arguments.isEmpty else { throw error("now() takes no arguments", at: position) }
            return constant(.date(Date().timeIntervalSinceReferenceDate))
        }
        let math = ["abs", "sqrt", "log", "ln", "exp", "floor", "ceiling", "trunc"]
        guard math.contains(name) else { throw error("function \(name)() is not supported in a fetch", at: position) }
        guard arguments.count == 1 else { throw error("\(name)() takes one argument", at: position) }
        let x = try operand(arguments[0], ctx)
        if name == "abs" { return SQLOperand(fragment: "abs(" + x.fragment + ")", type: .number) }
        return SQLOperand(fragment: "cdi_math('\(name)', " + x.fragment + ")", type: .number)
    }
}

import GRDB

/// A piece of SQL with the values bound to its `?` placeholders, in order. Fragments only
/// ever combine by concatenation, so arguments stay in the order their placeholders appear
/// and no value is ever spliced into SQL text.
public struct SQLFragment: Sendable, ExpressibleByStringLiteral {
    public var sql: String
    public var arguments: [DatabaseValue]

    public init(_ sql: String, _ arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    static func bind(_ value: DatabaseValue) -> SQLFragment { SQLFragment("?", [value]) }

    static func + (a: SQLFragment, b: SQLFragment) -> SQLFragment {
        SQLFragment(a.sql + b.sql, a.arguments + b.arguments)
    }

    static func + (a: SQLFragment, b: String) -> SQLFragment { SQLFragment(a.sql + b, a.arguments) }
    static func + (a: String, b: SQLFragment) -> SQLFragment { SQLFragment(a + b.sql, b.arguments) }

    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var out = SQLFragment("")
        for (i, part) in parts.enumerated() {
            if i > 0 { out.sql += separator }
            out = out + part
        }
        return out
    }

    /// The bound values, as stored values (for `explain` and the SQL debug log).
    public var storedArguments: [StoredValue] { arguments.map(StoredValue.init) }

    func parenthesized() -> SQLFragment { "(" + self + ")" }
}

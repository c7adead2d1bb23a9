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
        // Appended in place: `out = out + part` copies everything so far, which is quadratic
        // for a list of a hundred thousand values (`age IN {…}`).
        var out = SQLFragment("")
        for (i, part) in parts.enumerated() {
            if i > 0 { out.sql += separator }
            out.sql += part.sql
            out.arguments += part.arguments
        }
        return out
    }

    /// `parts` joined by AND or OR. SQLite parses `a OR b OR c …` into a tree as deep as the
    /// list is long and refuses one deeper than 1000; a long list (a generated predicate with
    /// thousands of ORs) is grouped into parenthesized halves instead, which means the same
    /// and is only log₂(n) deep. Short lists keep the flat form Core Data writes.
    static func chained(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        guard parts.count > 64 else { return joined(parts, separator: separator) }
        let middle = parts.count / 2
        return joined([chained(Array(parts[..<middle]), separator: separator).parenthesized(),
                       chained(Array(parts[middle...]), separator: separator).parenthesized()], separator: separator)
    }

    /// The bound values, as stored values (for `explain` and the SQL debug log).
    public var storedArguments: [StoredValue] { arguments.map(StoredValue.init) }

    func parenthesized() -> SQLFragment { "(" + self + ")" }
}

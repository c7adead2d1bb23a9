/// Writes a `Predicate` back as an NSPredicate format string, one that `PredicateParser`
/// (and `NSPredicate(format:)`) reads as the same predicate. With `placeholders`, string and
/// date constants become `%@` and are returned in order, as `NSPredicate(format:_:)` takes
/// them, so the code that holds the format needs no nested quoting.
public struct NSPredicateWriter {
    public private(set) var arguments: [PredicateValue] = []
    let placeholders: Bool

    public init(placeholders: Bool = false) {
        self.placeholders = placeholders
    }

    /// The format string alone, every constant written inline.
    public static func format(_ predicate: Predicate) -> String {
        var writer = NSPredicateWriter()
        return writer.write(predicate)
    }

    public mutating func write(_ predicate: Predicate) -> String {
        switch predicate {
        case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        // `NOT NOT a` reads as it is meant: parentheses around each inner NOT would double
        // the nesting, and 142 NOTs written back would pass the parser's depth limit.
        case .not(let p):
            if case .not = p { return "NOT " + write(p) }
            return "NOT " + grouped(p)
        case .and(let items): return items.map { grouped($0) }.joined(separator: " AND ")
        case .or(let items): return items.map { grouped($0) }.joined(separator: " OR ")
        case .comparison(let c):
            let modifier: String
            switch c.modifier {
            case .direct: modifier = ""
            case .any: modifier = "ANY "
            case .all: modifier = "ALL "
            case .notAny: modifier = "NONE "
            }
            let options = c.options.letters.isEmpty ? "" : "[" + c.options.letters + "]"
            return modifier + operand(c.left) + " " + c.op.rawValue + options + " " + operand(c.right)
        }
    }

    mutating func grouped(_ p: Predicate) -> String {
        switch p {
        case .and(let items) where items.count > 1: return "(" + write(p) + ")"
        case .or(let items) where items.count > 1: return "(" + write(p) + ")"
        case .not: return "(" + write(p) + ")"
        default: return write(p)
        }
    }

    mutating func operand(_ e: PredicateOperand) -> String {
        switch e.kind {
        case .constant(let value): return constant(value)
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .keyPath(let base, let key):
            let written = NSPredicateWriter.key(key)
            if case .evaluatedObject = base.kind { return written }
            return operand(base) + "." + written
        case .aggregate(let items): return "{" + items.map { operand($0) }.joined(separator: ", ") + "}"
        case .arithmetic(let op, let a, let b): return "(" + operand(a) + " " + op.rawValue + " " + operand(b) + ")"
        case .negate(let a): return "-" + operand(a)
        case .function(let name, let args): return name + "(" + args.map { operand($0) }.joined(separator: ", ") + ")"
        case .selectorCall(let receiver, let selector, let args):
            return "FUNCTION(" + ([operand(receiver), NSPredicateWriter.quoted(selector, quote: "'")] + args.map { operand($0) }).joined(separator: ", ") + ")"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(" + operand(collection) + ", $" + variable + ", " + write(predicate) + ")"
        case .cast(let a, let type): return "CAST(" + operand(a) + ", " + NSPredicateWriter.quoted(type, quote: "\"") + ")"
        case .index(let a, let index):
            switch index {
            case .first: return operand(a) + "[FIRST]"
            case .last: return operand(a) + "[LAST]"
            case .size: return operand(a) + "[SIZE]"
            case .expression(let i): return operand(a) + "[" + operand(i) + "]"
            }
        }
    }

    mutating func constant(_ value: PredicateValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let b): return b ? "YES" : "NO"
        case .integer(let i): return String(i)
        case .double(let d): return NSPredicateWriter.number(d)
        case .string(let s):
            if placeholders { arguments.append(value); return "%@" }
            return NSPredicateWriter.quoted(s, quote: "\"")
        case .date(let d):
            if placeholders { arguments.append(value); return "%@" }
            return "CAST(" + NSPredicateWriter.number(d) + ", \"NSDate\")"
        case .array(let items): return "{" + items.map { constant($0) }.joined(separator: ", ") + "}"
        }
    }

    /// A key as the grammar reads it: a reserved word takes `#`.
    static func key(_ key: String) -> String {
        PredicateLexer.reservedWords.contains(key.uppercased()) ? "#" + key : key
    }

    static func number(_ d: Double) -> String {
        if d.isNaN || d.isInfinite { return d.isNaN ? "nan" : (d < 0 ? "-inf" : "inf") }
        return String(d)
    }

    static func quoted(_ s: String, quote: Character) -> String {
        var out = String(quote)
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default:
                if Character(c) == quote { out += "\\" + String(quote) } else { out.unicodeScalars.append(c) }
            }
        }
        return out + String(quote)
    }
}

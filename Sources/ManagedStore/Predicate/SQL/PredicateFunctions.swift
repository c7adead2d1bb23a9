import Foundation
import GRDB

/// The SQL functions compiled predicates call. Core Data registers its own on its
/// connection (`NSCoreDataLike`, `NSCoreDataStringSearch`, …); these are the stand-ins,
/// Unicode-aware where SQLite's built-ins fold ASCII only. Every connection that runs a
/// compiled predicate registers them.
public enum PredicateFunctions {
    public static func register(_ db: Database) {
        db.add(function: fold)
        db.add(function: search)
        db.add(function: like)
        db.add(function: matches)
        db.add(function: power)
        db.add(function: math)
    }

    static func options(_ value: DatabaseValue) -> ComparisonOptions {
        ComparisonOptions(rawValue: Int(Int64.fromDatabaseValue(value) ?? 0))
    }

    /// `cdi_fold(value, options)`: `[c]`/`[d]` folding of text; other values pass through,
    /// so that options on a number comparison are ignored, as Foundation ignores them.
    static let fold = DatabaseFunction("cdi_fold", argumentCount: 2, pure: true) { values in
        guard case .string(let s) = values[0].storage else { return values[0] }
        return StringMatching.fold(s, options(values[1]))
    }

    /// `cdi_search(haystack, needle, mode, options)`: CONTAINS (0), BEGINSWITH (1), ENDSWITH (2).
    static let search = DatabaseFunction("cdi_search", argumentCount: 4, pure: true) { values in
        guard let h = String.fromDatabaseValue(values[0]), let n = String.fromDatabaseValue(values[1]) else { return nil }
        let mode = StringMatching.SearchMode(rawValue: Int(Int64.fromDatabaseValue(values[2]) ?? 0)) ?? .contains
        return StringMatching.search(h, n, mode, options(values[3]))
    }

    /// `cdi_like(text, pattern, options)`: NSPredicate LIKE (`*`, `?`, `\`), whole string.
    static let like = DatabaseFunction("cdi_like", argumentCount: 3, pure: true) { values in
        guard let t = String.fromDatabaseValue(values[0]), let p = String.fromDatabaseValue(values[1]) else { return nil }
        return StringMatching.like(t, p, options(values[2]))
    }

    /// `cdi_matches(text, regex, options)`: MATCHES, an ICU regular expression.
    static let matches = DatabaseFunction("cdi_matches", argumentCount: 3, pure: true) { values in
        guard let t = String.fromDatabaseValue(values[0]), let p = String.fromDatabaseValue(values[1]) else { return nil }
        guard let result = StringMatching.matches(t, p, options(values[2])) else {
            throw DatabaseError(message: "invalid regular expression for MATCHES: \(p)")
        }
        return result
    }

    static let power = DatabaseFunction("cdi_power", argumentCount: 2, pure: true) { values in
        guard let a = Double.fromDatabaseValue(values[0]), let b = Double.fromDatabaseValue(values[1]) else { return nil }
        return Foundation.pow(a, b)
    }

    /// `cdi_math(name, x)` for the predicate functions sqrt, log, ln, exp, floor, ceiling, trunc.
    static let math = DatabaseFunction("cdi_math", argumentCount: 2, pure: true) { values in
        guard let name = String.fromDatabaseValue(values[0]), let x = Double.fromDatabaseValue(values[1]) else { return nil }
        switch name {
        case "sqrt": return x.squareRoot()
        case "log": return Foundation.log10(x)
        case "ln": return Foundation.log(x)
        case "exp": return Foundation.exp(x)
        case "floor": return x.rounded(.down)
        case "ceiling": return x.rounded(.up)
        case "trunc": return x.rounded(.towardZero)
        default: return nil
        }
    }
}

import Foundation

/// NSPredicate's string operators with their `[c]`/`[d]` options, on Unicode scalars. The
/// SQL functions the compiler calls and the in-memory evaluator both use these, so a store
/// fetch and a match of unsaved objects agree. SQLite's own `lower()`, `LIKE` and `NOCASE`
/// fold ASCII only, which is why none of them is used.
public enum StringMatching {
    /// Case folding for `[c]`, diacritic stripping for `[d]` (canonical decomposition, then
    /// the combining marks dropped).
    public static func fold(_ s: String, _ options: ComparisonOptions) -> String {
        let folding = options.folding
        if folding.isEmpty { return s }
        var text = s
        if folding.contains(.diacriticInsensitive) {
            let decomposed = text.decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                switch $0.properties.generalCategory {
                case .nonspacingMark, .enclosingMark, .spacingMark: return false
                default: return true
                }
            }
            text = String(String.UnicodeScalarView(decomposed))
        }
        if folding.contains(.caseInsensitive) {
            text = text.lowercased()
        }
        return text
    }

    static func scalars(_ s: String, _ options: ComparisonOptions) -> [Unicode.Scalar] {
        Array(fold(s, options).unicodeScalars)
    }

    /// Equality as NSString compares: code unit for code unit, not Swift's canonical
    /// equivalence (`"é"` precomposed and decomposed differ unless `[d]` folds them).
    public static func equal(_ a: String, _ b: String, _ options: ComparisonOptions) -> Bool {
        scalars(a, options) == scalars(b, options)
    }

    /// Ordering in code-point order, as SQLite's BINARY collation orders UTF-8.
    public static func compare(_ a: String, _ b: String, _ options: ComparisonOptions) -> Int {
        let x = scalars(a, options), y = scalars(b, options)
        for (p, q) in zip(x, y) where p != q { return p.value < q.value ? -1 : 1 }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    public enum SearchMode: Int, Sendable {
        case contains = 0, beginsWith = 1, endsWith = 2
    }

    /// CONTAINS, BEGINSWITH, ENDSWITH. An empty search string matches nothing, as
    /// `rangeOfString:` finds nothing for it (predicate-pitfalls.md §6).
    public static func search(_ haystack: String, _ needle: String, _ mode: SearchMode, _ options: ComparisonOptions) -> Bool {
        search(haystack, folded: scalars(needle, options), mode, options)
    }

    /// As `search`, with the needle already folded: a store fetch folds it once per
    /// statement, not once per row (a long needle under `[d]` costs more to fold than to find).
    static func search(_ haystack: String, folded n: [Unicode.Scalar], _ mode: SearchMode, _ options: ComparisonOptions) -> Bool {
        let h = scalars(haystack, options)
        guard !n.isEmpty, n.count <= h.count else { return false }
        switch mode {
        case .beginsWith: return h[..<n.count].elementsEqual(n)
        case .endsWith: return h[(h.count - n.count)...].elementsEqual(n)
        case .contains:
            let first = n[0]
            var i = 0
            while i + n.count <= h.count {
                if h[i] == first, h[i..<(i + n.count)].elementsEqual(n) { return true }
                i += 1
            }
            return false
        }
    }

    /// LIKE: `*` any run of characters (newlines too), `?` exactly one, `\` makes the next
    /// character literal; everything else is literal and the whole string must match.
    public static func like(_ text: String, _ pattern: String, _ options: ComparisonOptions) -> Bool {
        LikePattern(pattern, options).matches(text, options)
    }

    /// A LIKE pattern, folded and split into literals and wildcards once.
    struct LikePattern {
        let items: [(scalar: Unicode.Scalar, wildcard: Bool)]

        init(_ pattern: String, _ options: ComparisonOptions) {
            var items: [(scalar: Unicode.Scalar, wildcard: Bool)] = []
            var escaped = false
            for c in StringMatching.scalars(pattern, options) {
                if escaped { items.append((c, false)); escaped = false; continue }
                if c == "\\" { escaped = true; continue }
                items.append((c, c == "*" || c == "?"))
            }
            if escaped { items.append(("\\", false)) }
            self.items = items
        }

        func matches(_ text: String, _ options: ComparisonOptions) -> Bool {
            let t = StringMatching.scalars(text, options)
            let p = items
            var ti = 0, pi = 0
            var star = -1, mark = 0
            while ti < t.count {
                if pi < p.count, p[pi].wildcard, p[pi].scalar == "*" {
                    star = pi; mark = ti; pi += 1
                } else if pi < p.count, (p[pi].wildcard && p[pi].scalar == "?") || (!p[pi].wildcard && p[pi].scalar == t[ti]) {
                    ti += 1; pi += 1
                } else if star >= 0 {
                    pi = star + 1; mark += 1; ti = mark
                } else {
                    return false
                }
            }
            while pi < p.count, p[pi].wildcard, p[pi].scalar == "*" { pi += 1 }
            return pi == p.count
        }
    }

    private static let regexLock = NSLock()
    /// Read and written only while holding `regexLock`.
    nonisolated(unsafe) private static var regexCache: [String: NSRegularExpression] = [:]

    /// MATCHES: an ICU regular expression that must match the whole string. `^`/`$` match
    /// at line breaks and `.` matches a newline, as GNUstep reports OS X doing. An empty
    /// pattern matches nothing. A bad pattern is an error (`nil`).
    public static func matches(_ text: String, _ pattern: String, _ options: ComparisonOptions) -> Bool? {
        guard !pattern.isEmpty else { return false }
        let diacritics = options.folding.intersection(.diacriticInsensitive)
        let subject = fold(text, diacritics)
        let key = "\(options.folding.rawValue)/\(pattern)"
        regexLock.lock()
        defer { regexLock.unlock() }
        var regex = regexCache[key]
        if regex == nil {
            var regexOptions: NSRegularExpression.Options = [.anchorsMatchLines, .dotMatchesLineSeparators]
            if options.folding.contains(.caseInsensitive) { regexOptions.insert(.caseInsensitive) }
            regex = try? NSRegularExpression(pattern: "\\A(?:" + fold(pattern, diacritics) + ")\\z", options: regexOptions)
            guard let regex else { return nil }
            if regexCache.count > 256 { regexCache.removeAll() }
            regexCache[key] = regex
        }
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return regex!.firstMatch(in: subject, options: [], range: range) != nil
    }
}

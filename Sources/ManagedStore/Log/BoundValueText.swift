/// Recovers a statement's bound values for the level-2 `SQLite bind[i] = …` lines.
///
/// SQLite has no call that reads a bound value back, but `sqlite3_expanded_sql` returns the
/// statement with each parameter replaced by an SQL literal and everything else copied
/// verbatim. Walking the statement's text and the expanded text side by side finds each
/// literal, whichever layer bound it (GRDB, or the C API for text with NUL bytes).
enum BoundValueText {
    /// Each bound value as Core Data prints it (an object's description: text unquoted,
    /// `nil` for NULL), or nil when the two texts do not line up.
    static func values(sql: String, expanded: String) -> [String]? {
        let a = Array(sql.utf8), b = Array(expanded.utf8)
        var i = 0, j = 0
        var values: [String] = []
        while i < a.count {
            let c = a[i]
            switch c {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
                let close = c == UInt8(ascii: "[") ? UInt8(ascii: "]") : c
                var end = i + 1
                while end < a.count {
                    if a[end] == close {
                        if close != UInt8(ascii: "]"), end + 1 < a.count, a[end + 1] == close { end += 2; continue }
                        break
                    }
                    end += 1
                }
                let length = min(end + 1, a.count) - i
                i += length
                j += length
            case UInt8(ascii: "?"):
                i += 1
                while i < a.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(a[i]) { i += 1 }
                guard let (value, next) = literal(b, at: j) else { return nil }
                values.append(value)
                j = next
            default:
                guard j < b.count, b[j] == c else { return nil }
                i += 1
                j += 1
            }
        }
        return values
    }

    /// The SQL literal SQLite wrote at `start`: NULL, a number, 'text' or x'blob'.
    static func literal(_ b: [UInt8], at start: Int) -> (String, Int)? {
        guard start < b.count else { return nil }
        if b[start...].starts(with: Array("NULL".utf8)) { return ("nil", start + 4) }
        if b[start] == UInt8(ascii: "'") {
            var text: [UInt8] = []
            var k = start + 1
            while k < b.count {
                if b[k] == UInt8(ascii: "'") {
                    if k + 1 < b.count, b[k + 1] == UInt8(ascii: "'") { text.append(b[k]); k += 2; continue }
                    return (String(decoding: text, as: UTF8.self), k + 1)
                }
                text.append(b[k])
                k += 1
            }
            return nil
        }
        if b[start] == UInt8(ascii: "x"), start + 1 < b.count, b[start + 1] == UInt8(ascii: "'") {
            guard let end = b[(start + 2)...].firstIndex(of: UInt8(ascii: "'")) else { return nil }
            let hex = String(decoding: b[(start + 2)..<end], as: UTF8.self).lowercased()
            let shown = hex.count <= 48 ? hex : hex.prefix(16) + " ... " + hex.suffix(16)
            return ("{length = \(hex.count / 2), bytes = 0x\(shown)}", end + 1)
        }
        var k = start
        let numeric = Set("+-0123456789.eE".utf8)
        while k < b.count, numeric.contains(b[k]) { k += 1 }
        guard k > start else { return nil }
        return (String(decoding: b[start..<k], as: UTF8.self), k)
    }
}

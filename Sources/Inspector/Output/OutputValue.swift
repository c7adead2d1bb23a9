import Foundation

/// A value on its way to the user, typed so that each format can render it properly
/// (JSON numbers stay numbers, dates become ISO 8601, binary becomes base64).
public enum OutputValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    /// Seconds since 2001-01-01 00:00:00 UTC, Core Data's reference date.
    case date(Double)
    case data([UInt8])
    case objectID(String)
    /// An object ID as its URI prefix (`x-coredata://UUID/Entity/p`) and primary key: the
    /// prefix is shared by every object of the entity, so a fetch does not build a string per row.
    case objectURI(prefix: String, key: Int64)
    /// A UUID, shown as `uuidString` (upper-case hex with dashes).
    case uuid(UUID)
    case array([OutputValue])
    case object([(String, OutputValue)])
    /// A transformable's archive: its one-line summary in text formats, the decoded value in
    /// JSON (decoded only when JSON asks, so a table of them costs no unarchiving).
    case archive(summary: String, bytes: [UInt8])
    /// JSON text from the store (SwiftData's Codable values), already checked to be JSON:
    /// nested as it is in JSON output, the text itself in the other formats.
    case json([UInt8])

    public static func == (lhs: OutputValue, rhs: OutputValue) -> Bool {
        lhs.text == rhs.text && lhs.jsonText == rhs.jsonText
    }

    static let referenceDateOffset: Double = 978_307_200

    /// ISO 8601 in UTC, always with milliseconds. Written by hand: a formatter per value
    /// costs more than the rest of a fetch's row.
    public static func isoDate(_ referenceSeconds: Double) -> String {
        isoDate(referenceSeconds, .utc)
    }

    /// A date as `style` shows it: ISO 8601 in its zone, and the stored value beside it when
    /// it asks (`2024-01-10T22:49:18.948+01:00 (726702558.948)`); the stored value alone for
    /// one no calendar date fits.
    public static func isoDate(_ referenceSeconds: Double, _ style: DateStyle) -> String {
        if !style.showsStored {
            // On a buffer on the stack: a table shows its dates this way, one String a cell.
            var storage: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
            return withUnsafeMutableBytes(of: &storage) { raw in
                let out = raw.bindMemory(to: UInt8.self)
                guard let base = out.baseAddress,
                      let n = writeISODate(referenceSeconds, offset: style.offset(at: referenceSeconds), to: base) else {
                    return formatReal(referenceSeconds)
                }
                return String(decoding: UnsafeBufferPointer(rebasing: out[..<n]), as: UTF8.self)
            }
        }
        let sink = OutputSink(collectingWithWidth: nil)
        sink.dateStyle = style
        sink.date(referenceSeconds, json: false)
        sink.flush()
        return String(decoding: sink.collected, as: UTF8.self)
    }

    /// The most bytes `writeISODate` writes: `-YYYYYY-MM-DDTHH:MM:SS.mmm+HH:MM:SS` (a year
    /// of six digits at most, for the values it accepts; an offset with seconds, as the time
    /// zone database has for local mean time before a zone's standard time).
    static let isoDateMaxLength = 35

    /// Writes the ISO 8601 bytes of a date at `out` (room for `isoDateMaxLength`) and
    /// returns how many; nil, writing nothing, for a value no calendar date fits. Output
    /// writes a fetch's dates straight into its buffer this way, one per row. `offset` is
    /// the zone's seconds east of UTC at that date; nil is UTC, written `Z`.
    static func writeISODate(_ referenceSeconds: Double, offset: Int? = nil, to out: UnsafeMutablePointer<UInt8>) -> Int? {
        guard referenceSeconds.isFinite, abs(referenceSeconds) < 1e13 else { return nil }
        // A whole number of seconds (the common case) needs no rounding: each rounding of a
        // Double is a call into libm on a baseline x86-64 build.
        let whole = Int64(referenceSeconds)
        let hasFraction = Double(whole) != referenceSeconds
        var seconds = whole + Int64(referenceDateOffset)
        var millis: Int64 = 0
        if hasFraction {
            let unix = referenceSeconds + referenceDateOffset
            seconds = Int64(unix.rounded(.down))
            millis = Int64(((unix - Double(seconds)) * 1000).rounded())
            if millis == 1000 { seconds += 1; millis = 0 }
        }
        seconds += Int64(offset ?? 0)
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm). Past the era,
        // every quantity is small and not negative: unsigned 32-bit division by a constant
        // is a multiply and a shift, about half the work of the signed 64-bit one, and a
        // fetch formats a date per row.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = UInt32(truncatingIfNeeded: z - era * 146_097)
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = Int64(yoe) + era * 400 + (month <= 2 ? 1 : 0)
        let time = UInt32(truncatingIfNeeded: rest)
        var p = out
        if year < 0 { p[0] = 45; p += 1 }
        // Years past 9999 take as many digits as they need, as Foundation writes them.
        var high = Swift.abs(year) / 10_000
        if high > 0 {
            var width = 0
            while high > 0 { width += 1; high /= 10 }
            high = Swift.abs(year) / 10_000
            for i in stride(from: width - 1, through: 0, by: -1) { p[i] = UInt8(truncatingIfNeeded: 48 + high % 10); high /= 10 }
            p += width
        }
        let y = UInt32(truncatingIfNeeded: Swift.abs(year) % 10_000)
        twoDigits(y / 100, p); twoDigits(y % 100, p + 2); p[4] = 45
        twoDigits(month, p + 5); p[7] = 45
        twoDigits(day, p + 8); p[10] = 84
        twoDigits(time / 3600, p + 11); p[13] = 58
        twoDigits(time / 60 % 60, p + 14); p[16] = 58
        twoDigits(time % 60, p + 17)
        p += 19
        // Always three digits of milliseconds, `.000` included: one width, so that dates sort
        // as text in a spreadsheet or a merged timeline.
        let ms = UInt32(truncatingIfNeeded: millis)
        p[0] = 46; p[1] = UInt8(truncatingIfNeeded: 48 + ms / 100); twoDigits(ms % 100, p + 2)
        p += 4
        guard let offset else {
            p[0] = 90
            return p + 1 - out
        }
        // `+HH:MM`, one width in a zone, so that its dates still sort as text; seconds only
        // for an offset that has them.
        let east = UInt32(truncatingIfNeeded: Swift.abs(offset))
        p[0] = offset < 0 ? 45 : 43
        twoDigits(east / 3600, p + 1); p[3] = 58
        twoDigits(east / 60 % 60, p + 4)
        p += 6
        if east % 60 != 0 {
            p[0] = 58
            twoDigits(east % 60, p + 1)
            p += 3
        }
        return p - out
    }

    /// "00" to "99", for writing two digits with one copy. Computed, so that reading it
    /// is the literal's address and not a lazily made global's check.
    static var digitPairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    @inline(__always)
    private static func twoDigits(_ value: UInt32, _ out: UnsafeMutablePointer<UInt8>) {
        let pair = digitPairs.utf8Start + Int(value) * 2
        out[0] = pair[0]
        out[1] = pair[1]
    }

    static func formatReal(_ d: Double) -> String {
        withRealText(d) { String(decoding: $0, as: UTF8.self) }
    }

    /// Hands the text of a Double to `body` from a buffer on the stack: whole numbers as
    /// `N.0`, others as Swift's `description` writes them (the shortest digits that read
    /// back as the same Double), NaN and the infinities by name.
    ///
    /// A value with at most 15 significant digits between 1e-4 and 1e15 — nearly every
    /// stored measurement or price — is written without a String: the fewest fraction
    /// digits k whose decimal n / 10^k divides back (correctly rounded, both exact) to the
    /// same Double. With 15 digits or fewer, two decimals never read as one Double, so the
    /// first k found is the shortest text, the one `description` gives. Others fall back
    /// to `description`.
    static func withRealText<R>(_ d: Double, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if d.isNaN { return withStaticText("NaN", body) }
        if d.isInfinite { return withStaticText(d < 0 ? "-Infinity" : "Infinity", body) }
        let a = abs(d)
        var digits: Int64 = -1, fraction = 0
        if a < 1e15 {
            if a.rounded() == a {
                digits = Int64(a)
            } else if a >= 1e-4 {
                var scale = 1.0
                search: for k in 1...15 {
                    scale *= 10
                    let guess = (a * scale).rounded()
                    guard guess < 1e15 else { break }
                    // The product may be off by one unit in its last place near a half.
                    for n in [guess, guess - 1, guess + 1] where n / scale == a {
                        digits = Int64(n)
                        fraction = k
                        break search
                    }
                }
            }
        }
        guard digits >= 0 else {
            var text = d.description
            return text.withUTF8(body)
        }
        var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &storage) { raw in
            let out = raw.bindMemory(to: UInt8.self)
            // Written backwards from the end: fraction digits, the point, whole digits, sign.
            var i = out.count
            var n = digits
            for _ in 0..<fraction {
                i -= 1
                out[i] = UInt8(48 + n % 10)
                n /= 10
            }
            if fraction == 0 { i -= 1; out[i] = 48 }
            i -= 1
            out[i] = 46
            repeat {
                i -= 1
                out[i] = UInt8(48 + n % 10)
                n /= 10
            } while n > 0
            if d < 0, digits > 0 { i -= 1; out[i] = 45 }
            return body(UnsafeBufferPointer(rebasing: out[i...]))
        }
    }

    private static func withStaticText<R>(_ text: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Plain text for table, CSV and line output, dates in UTC.
    public var text: String { text(.utc) }

    /// Plain text for table, CSV and line output, dates as `dates` shows them.
    public func text(_ dates: DateStyle) -> String {
        switch self {
        case .null: return "NULL"
        case .bool(let b): return b ? "YES" : "NO"
        case .integer(let i): return String(i)
        case .real(let d): return OutputValue.formatReal(d)
        case .string(let s): return s
        case .date(let d): return OutputValue.isoDate(d, dates)
        case .data(let bytes): return Data(bytes).base64EncodedString()
        case .objectID(let id): return id
        case .objectURI(let prefix, let key): return prefix + String(key)
        case .uuid(let u): return OutputValue.uuidText(u)
        // Lists and objects as `writeText` writes them: one definition of their text.
        case .array, .object:
            let sink = OutputSink(collectingWithWidth: nil)
            sink.dateStyle = dates
            writeText(to: sink)
            sink.flush()
            return String(decoding: sink.collected, as: UTF8.self)
        case .archive(let summary, _): return summary
        case .json(let bytes): return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Writes `text` into the sink, the common row values without a String of their own.
    public func writeText(to sink: OutputSink) {
        switch self {
        case .integer(let i): sink.integer(i)
        case .real(let d): OutputValue.withRealText(d) { sink.bytes(UnsafeRawBufferPointer($0)) }
        case .string(let s), .objectID(let s): sink.write(s)
        case .objectURI(let prefix, let key):
            sink.write(prefix)
            sink.integer(key)
        case .date(let d): sink.date(d, json: false)
        case .uuid(let u): OutputValue.withUUIDText(u) { sink.bytes(UnsafeRawBufferPointer($0)) }
        case .json(let bytes): bytes.withUnsafeBytes { sink.bytes($0) }
        case .null: sink.write(static: "NULL")
        case .bool(let b): sink.write(static: b ? "YES" : "NO")
        case .array(let items):
            for (i, item) in items.enumerated() {
                if i > 0 { sink.write(static: ", ") }
                item.writeText(to: sink)
            }
        case .object(let pairs):
            for (i, pair) in pairs.enumerated() {
                if i > 0 { sink.write(static: ", ") }
                sink.write(pair.0)
                sink.byte(61)
                pair.1.writeText(to: sink)
            }
        case .archive(let summary, _): sink.write(summary)
        case .data: sink.write(text)
        }
    }

    /// The value as JSON text: what `writeJSON` writes, for the few places that need a String.
    public var jsonText: String {
        let sink = OutputSink(collectingWithWidth: nil)
        writeJSON(to: sink)
        sink.flush()
        return String(decoding: sink.collected, as: UTF8.self)
    }

    /// Writes the value as JSON straight into the sink's buffer: numbers, dates and object
    /// URIs formatted in place, strings escaped by a scan over their bytes. Rows are written
    /// this way a million at a time, so no value makes a String of its own on the way.
    public func writeJSON(to sink: OutputSink) {
        switch self {
        case .null: sink.write("null")
        case .bool(let b): sink.write(b ? "true" : "false")
        case .integer(let i): sink.integer(i)
        case .real(let d):
            if d.isFinite { writeText(to: sink) } else { JSON.string(OutputValue.formatReal(d), to: sink) }
        case .string(let s), .objectID(let s): JSON.string(s, to: sink)
        case .date(let d): sink.date(d, json: true)
        case .uuid:
            // Digits, dashes and letters only: the text needs no escaping.
            sink.byte(34)
            writeText(to: sink)
            sink.byte(34)
        case .data(let bytes): JSON.string(Data(bytes).base64EncodedString(), to: sink)
        case .objectURI(let prefix, let key):
            sink.byte(34)
            sink.jsonEscaped(prefix)
            sink.integer(key)
            sink.byte(34)
        case .array(let items):
            sink.byte(91)
            for (i, item) in items.enumerated() {
                if i > 0 { sink.write(", ") }
                item.writeJSON(to: sink)
            }
            sink.byte(93)
        case .object(let pairs):
            sink.byte(123)
            for (i, pair) in pairs.enumerated() {
                if i > 0 { sink.write(", ") }
                JSON.string(pair.0, to: sink)
                sink.write(": ")
                pair.1.writeJSON(to: sink)
            }
            sink.byte(125)
        case .archive(_, let bytes): OutputValue(archiveBytes: bytes).writeJSON(to: sink)
        case .json(let bytes): bytes.withUnsafeBytes { sink.bytes($0) }
        }
    }
}

enum JSON {
    static func string(_ s: String, to sink: OutputSink) {
        sink.byte(34)
        sink.jsonEscaped(s)
        sink.byte(34)
    }

    static func quote(_ s: String) -> String {
        let sink = OutputSink(collectingWithWidth: nil)
        string(s, to: sink)
        sink.flush()
        return String(decoding: sink.collected, as: UTF8.self)
    }
}

/// A 64-bit digest of a record's values, the same whether taken from the record's bytes in a
/// page or from the values a carved record was parsed into: so that a rebuilt record (its
/// rowid lost) is compared with every live row of its table without parsing those rows into
/// values (on a million-row table, the parse and its allocations cost more than the rest of
/// `recover`).
///
/// The digest covers each value's kind and content, not the serial type it was written
/// with: an integer 1 written as type 9 and as type 1 digests the same, as it compares equal.
/// Two different rows that digest alike would hide a deleted record as a live one: with 64
/// bits, a record compared with a million rows meets one by chance once in 10^13 records.
/// The mixing is MurmurHash64A's.
public struct RecordDigest {
    private var state: UInt64 = 0x5DEE_CE66_D1CE_4E5B
    private static let multiplier: UInt64 = 0xC6A4_A793_5BD1_E995

    public init() {}

    public var value: UInt64 {
        var h = state
        h ^= h >> 47
        h &*= Self.multiplier
        h ^= h >> 47
        return h
    }

    @inline(__always)
    private mutating func mix(_ word: UInt64) {
        var k = word &* Self.multiplier
        k ^= k >> 47
        k &*= Self.multiplier
        state ^= k
        state &*= Self.multiplier
    }

    // Each value is one word mixed in, its kind folded into it by a constant of its own: a
    // NULL, an integer and a real of the same bits digest differently.
    mutating func null() { mix(0x9E37_79B9_7F4A_7C15) }

    mutating func integer(_ value: Int64) {
        mix(UInt64(bitPattern: value) ^ 0x2545_F491_4F6C_DD1D)
    }

    mutating func real(_ value: Double) {
        // 0.0 and -0.0 compare equal.
        mix((value == 0 ? 0 : value.bitPattern) ^ 0xD6E8_FEB8_6659_FD93)
    }

    /// A text (`isText`) or blob's bytes, eight at a time, after their length and kind.
    mutating func bytes(_ bytes: UnsafeRawBufferPointer, isText: Bool) {
        mix(UInt64(bytes.count) << 1 | (isText ? 1 : 0))
        var at = 0
        while at + 8 <= bytes.count {
            mix(bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            at += 8
        }
        if at < bytes.count {
            var tail: UInt64 = 0
            for index in at..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
            mix(tail)
        }
    }

    /// The digest of `values`.
    public static func of(_ values: [StoredValue]) -> UInt64 {
        var digest = RecordDigest()
        for value in values {
            switch value {
            case .null: digest.null()
            case .integer(let i): digest.integer(i)
            case .real(let d): digest.real(d)
            case .text(let s):
                var s = s
                s.withUTF8 { digest.bytes(UnsafeRawBufferPointer($0), isText: true) }
            case .blob(let b): b.withUnsafeBytes { digest.bytes($0, isText: false) }
            }
        }
        return digest.value
    }

    /// The digest of the record at `record` in `bytes`, equal to `of` its values; nil where
    /// `RecordFormat.values` would find no record (a reserved type, a value past the record's
    /// end, values that do not end where it does). Texts are not checked to be UTF-8: a
    /// carved record's are, so one whose bytes equal them is too.
    public static func of(_ bytes: UnsafeRawBufferPointer, record: Range<Int>) -> UInt64? {
        guard record.upperBound <= bytes.count, let (headerSize, first) = FormatBytes.varint(bytes, at: record.lowerBound), headerSize >= 1,
              headerSize <= UInt64(record.count) else { return nil }
        let headerEnd = record.lowerBound + Int(headerSize)
        var digest = RecordDigest()
        var typeAt = first
        var at = headerEnd
        while typeAt < headerEnd {
            guard let (type, next) = FormatBytes.varint(bytes, at: typeAt), next <= headerEnd,
                  let size = RecordFormat.size(ofSerialType: type), at + size <= record.upperBound else { return nil }
            typeAt = next
            switch type {
            case 0: digest.null()
            case 8: digest.integer(0)
            case 9: digest.integer(1)
            case 1...6:
                var value = Int64(Int8(bitPattern: bytes[at]))
                for offset in 1..<size { value = value << 8 | Int64(bytes[at + offset]) }
                digest.integer(value)
            case 7:
                digest.real(Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))))
            default:
                digest.bytes(UnsafeRawBufferPointer(rebasing: bytes[at..<(at + size)]), isText: type % 2 == 1)
            }
            at += size
        }
        return at == record.upperBound ? digest.value : nil
    }
}

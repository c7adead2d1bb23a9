/// A record's header and columns (sqlite.org/fileformat2.html, "2.1 Record Format"): a
/// header-size varint, one serial-type varint per column, then the values in order.
///
/// Serial types: 0 NULL; 1–4 big-endian integers of 1, 2, 3, 4 bytes; 5 six bytes; 6 eight;
/// 7 a float; 8 and 9 the integers 0 and 1; 10 and 11 reserved; N ≥ 12 even a blob of
/// (N-12)/2 bytes, odd a text of (N-13)/2.
public enum RecordFormat {
    /// Bytes a value of serial type `type` takes, or nil for the reserved types.
    public static func size(ofSerialType type: UInt64) -> Int? {
        switch type {
        case 0, 8, 9: return 0
        case 1, 2, 3, 4: return Int(type)
        case 5: return 6
        case 6, 7: return 8
        case 10, 11: return nil
        default: return type > UInt64(Int32.max) ? nil : Int((type - 12) / 2)
        }
    }

    /// The serial types of the record at `record` in `bytes`, and where its values start;
    /// nil when the header leaves the bytes or holds a reserved type.
    public static func serialTypes(_ bytes: UnsafeRawBufferPointer, record: Range<Int>, limit: Int = 4096) -> (types: [UInt64], body: Int)? {
        guard let (headerSize, first) = FormatBytes.varint(bytes, at: record.lowerBound), headerSize >= 1,
              headerSize <= UInt64(record.count) else { return nil }
        let headerEnd = record.lowerBound + Int(headerSize)
        var types: [UInt64] = []
        var at = first
        while at < headerEnd, types.count < limit {
            guard let (type, next) = FormatBytes.varint(bytes, at: at), next <= headerEnd, size(ofSerialType: type) != nil else { return nil }
            types.append(type)
            at = next
        }
        return (types, headerEnd)
    }

    /// The integer in column `column` of the record, or nil when it is not an integer or not
    /// in the bytes.
    public static func integer(_ bytes: UnsafeRawBufferPointer, record: Range<Int>, column: Int) -> Int64? {
        guard let (headerSize, first) = FormatBytes.varint(bytes, at: record.lowerBound), headerSize <= UInt64(record.count) else { return nil }
        let headerEnd = record.lowerBound + Int(headerSize)
        var typeAt = first
        var dataAt = headerEnd
        for index in 0...max(0, column) {
            guard typeAt < headerEnd, let (type, next) = FormatBytes.varint(bytes, at: typeAt), let size = size(ofSerialType: type) else { return nil }
            typeAt = next
            if index == column {
                switch type {
                case 8: return 0
                case 9: return 1
                case 1...6:
                    guard dataAt + size <= record.upperBound else { return nil }
                    var value = Int64(Int8(bitPattern: bytes[dataAt]))
                    for offset in 1..<size { value = value << 8 | Int64(bytes[dataAt + offset]) }
                    return value
                default: return nil
                }
            }
            dataAt += size
            guard dataAt <= record.upperBound else { return nil }
        }
        return nil
    }

    /// The first three columns of a Core Data entity table's record in one pass over its
    /// header: whether column 0 (`Z_PK`, the rowid's alias) is NULL, and the integers in
    /// columns 1 and 2 (`Z_ENT`, `Z_OPT`); nil when the record is not laid out so.
    public static func entityRow(_ bytes: UnsafeRawBufferPointer, record: Range<Int>) -> (entity: Int64, version: Int64)? {
        guard let (headerSize, first) = FormatBytes.varint(bytes, at: record.lowerBound), headerSize <= UInt64(record.count),
              let (type0, second) = FormatBytes.varint(bytes, at: first), type0 == 0,
              let (type1, third) = FormatBytes.varint(bytes, at: second),
              let (type2, end) = FormatBytes.varint(bytes, at: third) else { return nil }
        let headerEnd = record.lowerBound + Int(headerSize)
        guard end <= headerEnd, let size1 = integerSize(type1), let size2 = integerSize(type2),
              headerEnd + size1 + size2 <= record.upperBound else { return nil }
        return (integerValue(bytes, at: headerEnd, type: type1), integerValue(bytes, at: headerEnd + size1, type: type2))
    }

    /// Bytes an integer of serial type `type` takes, nil when the type is no integer.
    private static func integerSize(_ type: UInt64) -> Int? {
        switch type {
        case 8, 9: return 0
        case 1...6: return size(ofSerialType: type)
        default: return nil
        }
    }

    /// The integer of serial type `type` (an integer type, its bytes checked) at `offset`.
    private static func integerValue(_ bytes: UnsafeRawBufferPointer, at offset: Int, type: UInt64) -> Int64 {
        switch type {
        case 8: return 0
        case 9: return 1
        default:
            let size = self.size(ofSerialType: type) ?? 0
            var value = Int64(Int8(bitPattern: bytes[offset]))
            for index in 1..<max(1, size) { value = value << 8 | Int64(bytes[offset + index]) }
            return value
        }
    }

    /// Whether column `column` of the record is NULL (serial type 0).
    public static func isNull(_ bytes: UnsafeRawBufferPointer, record: Range<Int>, column: Int) -> Bool {
        guard let (headerSize, first) = FormatBytes.varint(bytes, at: record.lowerBound), headerSize <= UInt64(record.count) else { return false }
        let headerEnd = record.lowerBound + Int(headerSize)
        var typeAt = first
        for index in 0...max(0, column) {
            guard typeAt < headerEnd, let (type, next) = FormatBytes.varint(bytes, at: typeAt) else { return false }
            if index == column { return type == 0 }
            typeAt = next
        }
        return false
    }

    /// How many columns the record's header lists.
    public static func columnCount(_ bytes: UnsafeRawBufferPointer, record: Range<Int>) -> Int? {
        guard let (headerSize, first) = FormatBytes.varint(bytes, at: record.lowerBound), headerSize <= UInt64(record.count) else { return nil }
        let headerEnd = record.lowerBound + Int(headerSize)
        var count = 0
        var at = first
        while at < headerEnd {
            guard let (_, next) = FormatBytes.varint(bytes, at: at) else { return nil }
            at = next
            count += 1
        }
        return count
    }
}

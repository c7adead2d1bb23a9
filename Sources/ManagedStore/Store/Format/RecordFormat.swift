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

import Foundation

extension RecordFormat {
    /// The values of the record at `record` in `bytes` (fileformat2.html, "2.1"), as the column
    /// holds them; nil when the header or a value leaves the record, a type is reserved, or a
    /// text is not UTF-8 (the stores cdinspect reads are UTF-8: such bytes are no record).
    public static func values(_ bytes: UnsafeRawBufferPointer, record: Range<Int>, limit: Int = 2000) -> [StoredValue]? {
        guard let (types, body) = serialTypes(bytes, record: record, limit: limit) else { return nil }
        return values(bytes, types: types, body: body..<record.upperBound)
    }

    /// The values of serial types `types` laid out from `body.lowerBound`; nil when they do not
    /// fit in `body` exactly (a record's values end where its payload does).
    public static func values(_ bytes: UnsafeRawBufferPointer, types: [UInt64], body: Range<Int>) -> [StoredValue]? {
        var at = body.lowerBound
        var values: [StoredValue] = []
        values.reserveCapacity(types.count)
        for type in types {
            guard let size = size(ofSerialType: type), at + size <= body.upperBound, at + size <= bytes.count else { return nil }
            switch type {
            case 0: values.append(.null)
            case 8: values.append(.integer(0))
            case 9: values.append(.integer(1))
            case 1...6:
                var value = Int64(Int8(bitPattern: bytes[at]))
                for offset in 1..<size { value = value << 8 | Int64(bytes[at + offset]) }
                values.append(.integer(value))
            case 7:
                var bits: UInt64 = 0
                for offset in 0..<8 { bits = bits << 8 | UInt64(bytes[at + offset]) }
                values.append(.real(Double(bitPattern: bits)))
            default:
                let slice = Array(bytes[at..<(at + size)])
                if type % 2 == 0 {
                    values.append(.blob(slice))
                } else {
                    guard let text = String(validating: slice, as: UTF8.self) else { return nil }
                    values.append(.text(text))
                }
            }
            at += size
        }
        guard at == body.upperBound else { return nil }
        return values
    }
}

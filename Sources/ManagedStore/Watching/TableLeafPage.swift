/// The rows one b-tree page of a table holds, read from the page's bytes
/// (sqlite.org/fileformat2.html, "1.6 B-tree Pages" and "2.1 Record Format").
///
/// `watch` reads the pages a commit wrote straight from the `-wal`, so that only rows on
/// those pages are looked at again: a row's key is its cell's rowid, and the table the page
/// belongs to is told by the row's `Z_ENT`, which names one entity and so one table.
/// Everything is bounds-checked: a page of another kind, or one the writer was still
/// writing, gives nil or fewer rows, never a crash.
struct TableLeafPage {
    /// Rowids (`Z_PK`) of the page's cells, ascending as SQLite keeps them.
    var keys: [Int64]
    /// The integer in record column `entityColumn` of the first cell that has one.
    var entity: Int64?

    /// nil when the page is not a table leaf. `usableSize` is the page size less the bytes
    /// the database header reserves at the end of each page.
    init?(_ page: UnsafeRawBufferPointer, pageNumber: UInt32, usableSize: Int, entityColumn: Int?) {
        let start = pageNumber == 1 ? 100 : 0
        guard page.count >= start + 8, page[start] == 0x0D else { return nil }
        let cells = Int(page[start + 3]) << 8 | Int(page[start + 4])
        guard start + 8 + cells * 2 <= page.count else { return nil }
        keys = []
        keys.reserveCapacity(cells)
        entity = nil
        for cell in 0..<cells {
            let pointer = Int(page[start + 8 + cell * 2]) << 8 | Int(page[start + 9 + cell * 2])
            guard pointer < page.count, let (payload, afterSize) = Self.varint(page, at: pointer),
                  let (rowid, afterKey) = Self.varint(page, at: afterSize) else { return nil }
            keys.append(Int64(bitPattern: rowid))
            if entity == nil, let entityColumn, payload > 0 {
                let local = Self.localPayload(Int(clamping: payload), usableSize: usableSize)
                let end = min(page.count, afterKey + local)
                entity = Self.integerColumn(page, record: afterKey..<end, column: entityColumn)
            }
        }
    }

    /// Bytes of a cell's payload kept on the leaf itself; the rest is on overflow pages.
    static func localPayload(_ payload: Int, usableSize: Int) -> Int {
        let most = usableSize - 35
        guard payload > most else { return payload }
        let least = (usableSize - 12) * 32 / 255 - 23
        let kept = least + (payload - least) % (usableSize - 4)
        return kept <= most ? kept : least
    }

    /// An integer column of a record, or nil when it is not an integer or not on the page.
    static func integerColumn(_ page: UnsafeRawBufferPointer, record: Range<Int>, column: Int) -> Int64? {
        guard let (headerSize, firstType) = varint(page, at: record.lowerBound) else { return nil }
        let headerEnd = record.lowerBound + Int(clamping: headerSize)
        guard headerEnd <= record.upperBound else { return nil }
        var typeAt = firstType
        var dataAt = headerEnd
        for index in 0...column {
            guard typeAt < headerEnd, let (type, next) = varint(page, at: typeAt) else { return nil }
            typeAt = next
            let size: Int
            switch type {
            case 0, 8, 9: size = 0
            case 1, 2, 3, 4: size = Int(type)
            case 5: size = 6
            case 6, 7: size = 8
            case 10, 11: return nil
            default: size = Int(clamping: (type - 12) / 2)
            }
            if index == column {
                switch type {
                case 8: return 0
                case 9: return 1
                case 1...6:
                    guard dataAt + size <= record.upperBound else { return nil }
                    var value = Int64(Int8(bitPattern: page[dataAt]))
                    for offset in 1..<size { value = value << 8 | Int64(page[dataAt + offset]) }
                    return value
                default: return nil
                }
            }
            dataAt += size
        }
        return nil
    }

    /// SQLite's variable-length integer: big-endian groups of seven bits, the ninth byte
    /// whole. nil when it runs off the page.
    static func varint(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (UInt64, Int)? {
        var value: UInt64 = 0
        for i in 0..<9 {
            guard offset + i < bytes.count else { return nil }
            let byte = bytes[offset + i]
            if i == 8 { return (value << 8 | UInt64(byte), offset + 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (value, offset + i + 1) }
        }
        return nil
    }
}

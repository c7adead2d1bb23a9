/// Everything the format reader can read of one page, for the fuzz target and the fail
/// cases that replay its finds: the header, every table cell with its record's serial types
/// and integers, the freeblock chain and the unallocated space.
public enum BTreePageReading {
    /// How many values were read (so that nothing is optimised away).
    @discardableResult
    public static func readAll(_ page: [UInt8], pageNumber: UInt32) -> Int {
        page.withUnsafeBytes { bytes in
            guard let parsed = BTreePage(bytes, pageNumber: pageNumber, usableSize: bytes.count) else { return 0 }
            var seen = parsed.freeblocks.count + parsed.unallocated.count
            for cell in parsed.tableCells {
                seen += 1
                if let (types, _) = RecordFormat.serialTypes(bytes, record: cell.local) {
                    for column in 0..<min(types.count, 64) where RecordFormat.integer(bytes, record: cell.local, column: column) != nil { seen += 1 }
                }
            }
            for index in 0..<parsed.cellCount where parsed.cellOffset(index) != nil { seen += 1 }
            return seen
        }
    }
}

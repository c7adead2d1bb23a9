/// Everything the format reader can read of one page, for the fuzz target and the fail
/// cases that replay its finds: the header, every table cell with its record's serial types
/// and integers, the freeblock chain and the unallocated space; a row search with the page as
/// the root of a one-page tree; and the page compared with itself cut short, as `generations`
/// compares a leaf before and after a commit.
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
            for rowid in [Int64(1), 2, 51, Int64.max] {
                seen += TableBTree.find(rowid, root: pageNumber, usableSize: bytes.count, read: { $0 == pageNumber ? bytes : nil }) { _, record in record.count } ?? 0
            }
            return seen
        } + leafDiffs(page, pageNumber: pageNumber)
    }

    private static func leafDiffs(_ page: [UInt8], pageNumber: UInt32) -> Int {
        var seen = 0
        let cut = Array(page.prefix(page.count / 2)) + [UInt8](repeating: 0, count: page.count - page.count / 2)
        page.withUnsafeBytes { whole in
            cut.withUnsafeBytes { half in
                LeafDiff.rows(whole, half, page: pageNumber, usable: page.count, known: { _ in true }) { _ in seen += 1 }
                LeafDiff.rows(nil, whole, page: pageNumber, usable: page.count, known: { $0 > 0 }) { _ in seen += 1 }
            }
        }
        return seen
    }
}

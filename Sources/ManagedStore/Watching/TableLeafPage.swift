/// The rows one b-tree page of a table holds, read from the page's bytes through the format
/// reader (`BTreePage`, `RecordFormat`).
///
/// `watch` reads the pages a commit wrote straight from the `-wal`, so that only rows on
/// those pages are looked at again: a row's key is its cell's rowid, and the table the page
/// belongs to is told by the row's `Z_ENT`, which names one entity and so one table.
/// A page of another kind, or one the writer was still writing, gives nil or fewer rows.
struct TableLeafPage {
    /// Rowids (`Z_PK`) of the page's cells, ascending as SQLite keeps them.
    var keys: [Int64]
    /// The integer in record column `entityColumn` of the first cell that has one.
    var entity: Int64?

    /// nil when the page is not a table leaf. `usableSize` is the page size less the bytes
    /// the database header reserves at the end of each page.
    init?(_ page: UnsafeRawBufferPointer, pageNumber: UInt32, usableSize: Int, entityColumn: Int?) {
        guard let parsed = BTreePage(page, pageNumber: pageNumber, usableSize: usableSize), parsed.kind == .tableLeaf else { return nil }
        keys = []
        keys.reserveCapacity(parsed.cellCount)
        entity = nil
        for index in 0..<parsed.cellCount {
            guard let offset = parsed.cellOffset(index), let cell = parsed.tableCell(at: offset) else { return nil }
            keys.append(cell.rowid)
            if entity == nil, let entityColumn, cell.payloadSize > 0 {
                entity = RecordFormat.integer(page, record: cell.local, column: entityColumn)
            }
        }
    }
}

import Foundation

/// The rows that differ between two copies of one table leaf (before and after a commit),
/// read with the format reader: both leaves' cells are in rowid order, so one merge finds the
/// rows only one copy holds and those whose `Z_OPT` or bytes differ, without copying a record.
///
/// Only rows of Core Data entity tables count: a NULL first column (`Z_PK`, the rowid), then
/// an integer `Z_ENT` the model knows (`known`) and an integer `Z_OPT`.
enum LeafDiff {
    struct Row {
        let rowid: Int64
        let entity: Int64
        /// `Z_OPT` in the copy before and after (nil where that copy does not hold the row).
        let before: Int64?
        let after: Int64?
        /// Both copies hold it, with the same `Z_OPT`, and other bytes.
        let bytesChanged: Bool
    }

    private struct Cell {
        let rowid: Int64
        let entity: Int64
        let version: Int64
        let record: Range<Int>
    }

    static func rows(_ before: [UInt8]?, _ after: [UInt8]?, page: UInt32, usable: Int, known: (Int64) -> Bool, _ body: (Row) -> Void) {
        let (beforeBytes, afterBytes) = (before ?? [], after ?? [])
        let old = cells(beforeBytes, page: page, usable: usable, known: known)
        let new = cells(afterBytes, page: page, usable: usable, known: known)
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if j == new.count || (i < old.count && old[i].rowid < new[j].rowid) {
                body(Row(rowid: old[i].rowid, entity: old[i].entity, before: old[i].version, after: nil, bytesChanged: false))
                i += 1
            } else if i == old.count || new[j].rowid < old[i].rowid {
                body(Row(rowid: new[j].rowid, entity: new[j].entity, before: nil, after: new[j].version, bytesChanged: false))
                j += 1
            } else {
                let (a, b) = (old[i], new[j])
                let same = a.version == b.version && beforeBytes[a.record].elementsEqual(afterBytes[b.record])
                if !same { body(Row(rowid: b.rowid, entity: b.entity, before: a.version, after: b.version, bytesChanged: a.version == b.version)) }
                i += 1
                j += 1
            }
        }
    }

    private static func cells(_ page: [UInt8], page number: UInt32, usable: Int, known: (Int64) -> Bool) -> [Cell] {
        page.withUnsafeBytes { bytes in
            guard let leaf = BTreePage(bytes, pageNumber: number, usableSize: usable), leaf.kind == .tableLeaf else { return [] }
            var cells: [Cell] = []
            cells.reserveCapacity(leaf.cellCount)
            for index in 0..<leaf.cellCount {
                guard let offset = leaf.cellOffset(index), let cell = leaf.tableCell(at: offset),
                      let (entity, version) = RecordFormat.entityRow(bytes, record: cell.local), known(entity) else { continue }
                // A leaf's cells are in rowid order; one that is not (a hostile page) ends it.
                if let last = cells.last, last.rowid >= cell.rowid { break }
                cells.append(Cell(rowid: cell.rowid, entity: entity, version: version, record: cell.local))
            }
            return cells
        }
    }
}

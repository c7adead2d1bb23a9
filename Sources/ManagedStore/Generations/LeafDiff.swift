import Foundation

/// The rows that differ between two copies of one table leaf (before and after a commit),
/// read with the format reader: both leaves' cells are in rowid order, so one merge finds the
/// rows only one copy holds and those whose bytes differ, without copying a record.
///
/// Only rows of Core Data entity tables count: a NULL first column (`Z_PK`, the rowid), then
/// an integer `Z_ENT` the model knows (`known`) and an integer `Z_OPT`. A record is decoded
/// only where the copies differ: a leaf of 50 rows that a save changed one of compares 49
/// pairs of bytes and decodes two records.
///
/// Most saves rewrite a row in place: SQLite overwrites a cell whose new record has the old
/// one's size where it lies (`sqlite3BtreeInsert`'s overwrite optimization, since 3.23), and
/// the two copies' cell-pointer arrays are then the same. There, each cell is compared as the
/// bytes from its start to the next cell's, and only a cell whose bytes differ is parsed.
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

    /// A leaf's cells in order: each with its rowid and record, skipping cells that do not
    /// parse, ending at one out of rowid order (a hostile page).
    private struct Cells {
        let page: BTreePage?
        var index = 0
        var last: Int64?

        init(_ bytes: UnsafeRawBufferPointer?, page number: UInt32, usable: Int) {
            let page = bytes.flatMap { BTreePage($0, pageNumber: number, usableSize: usable) }
            self.page = page?.kind == .tableLeaf ? page : nil
        }

        mutating func next() -> BTreePage.TableCell? {
            guard let page else { return nil }
            while index < page.cellCount {
                defer { index += 1 }
                guard let offset = page.cellOffset(index), let cell = page.tableCell(at: offset) else { continue }
                if let last, last >= cell.rowid {
                    index = page.cellCount
                    return nil
                }
                last = cell.rowid
                return cell
            }
            return nil
        }
    }

    static func rows(_ before: UnsafeRawBufferPointer?, _ after: UnsafeRawBufferPointer?, page: UInt32, usable: Int,
                     known: (Int64) -> Bool, _ body: (Row) -> Void) {
        if let before, let after, inPlace(before, after, page: page, usable: usable, known: known, body) { return }
        var old = Cells(before, page: page, usable: usable), new = Cells(after, page: page, usable: usable)
        var a = old.next(), b = new.next()
        while a != nil || b != nil {
            if let x = a, b == nil || x.rowid < b!.rowid {
                if let row = entity(x, in: before, known: known) { body(Row(rowid: x.rowid, entity: row.entity, before: row.version, after: nil, bytesChanged: false)) }
                a = old.next()
            } else if let y = b, a == nil || y.rowid < a!.rowid {
                if let row = entity(y, in: after, known: known) { body(Row(rowid: y.rowid, entity: row.entity, before: nil, after: row.version, bytesChanged: false)) }
                b = new.next()
            } else if let x = a, let y = b {
                compare(x, in: before, y, in: after, known: known, body)
                a = old.next()
                b = new.next()
            }
        }
    }

    /// Reports a row both copies hold, where its bytes differ.
    private static func compare(_ x: BTreePage.TableCell, in before: UnsafeRawBufferPointer?, _ y: BTreePage.TableCell, in after: UnsafeRawBufferPointer?,
                                known: (Int64) -> Bool, _ body: (Row) -> Void) {
        guard !same(x.local, in: before, y.local, in: after) else { return }
        switch (entity(x, in: before, known: known), entity(y, in: after, known: known)) {
        case let (was?, now?):
            body(Row(rowid: y.rowid, entity: now.entity, before: was.version, after: now.version, bytesChanged: was.version == now.version))
        case let (was?, nil):
            body(Row(rowid: x.rowid, entity: was.entity, before: was.version, after: nil, bytesChanged: false))
        case let (nil, now?):
            body(Row(rowid: y.rowid, entity: now.entity, before: nil, after: now.version, bytesChanged: false))
        case (nil, nil): break
        }
    }

    /// `Z_ENT` and `Z_OPT` of a cell, when it is a row of an entity the model knows.
    private static func entity(_ cell: BTreePage.TableCell, in bytes: UnsafeRawBufferPointer?, known: (Int64) -> Bool) -> (entity: Int64, version: Int64)? {
        guard let bytes, let row = RecordFormat.entityRow(bytes, record: cell.local), known(row.entity) else { return nil }
        return row
    }

    /// The rows of two copies whose cell-pointer arrays are the same, compared cell by cell
    /// where they lie; false (nothing reported) when the arrays differ, or a cell holds
    /// another row in each copy: the merge then compares them.
    private static func inPlace(_ before: UnsafeRawBufferPointer, _ after: UnsafeRawBufferPointer, page: UInt32, usable: Int,
                                known: (Int64) -> Bool, _ body: (Row) -> Void) -> Bool {
        guard let old = BTreePage(before, pageNumber: page, usableSize: usable), old.kind == .tableLeaf,
              let new = BTreePage(after, pageNumber: page, usableSize: usable), new.kind == .tableLeaf,
              old.cellCount == new.cellCount, old.usableSize == new.usableSize, let a = before.baseAddress, let b = after.baseAddress else { return false }
        let pointers = old.headerStart + old.headerSize
        guard memcmp(a + pointers, b + pointers, old.cellCount * 2) == 0 else { return false }
        let end = old.usableSize
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, old.cellCount)) { starts in
            // The cells' starts in page order: each cell ends at or before the next one's start.
            var count = 0
            for index in 0..<old.cellCount {
                guard let start = old.cellOffset(index) else { continue }
                starts[count] = start
                count += 1
            }
            starts[0..<count].sort()
            var differing: [(BTreePage.TableCell, BTreePage.TableCell)] = []
            for index in 0..<count {
                let start = starts[index], next = index + 1 < count ? starts[index + 1] : end
                guard next > start, memcmp(a + start, b + start, next - start) != 0 else { continue }
                guard let x = old.tableCell(at: start), let y = new.tableCell(at: start) else { continue }
                // Another row where this one was: not an overwrite; the merge sorts it out.
                guard x.rowid == y.rowid else { return false }
                differing.append((x, y))
            }
            for (x, y) in differing { compare(x, in: before, y, in: after, known: known, body) }
            return true
        }
    }

    /// Whether two records' local bytes are the same.
    private static func same(_ a: Range<Int>, in first: UnsafeRawBufferPointer?, _ b: Range<Int>, in second: UnsafeRawBufferPointer?) -> Bool {
        guard a.count == b.count, let first = first?.baseAddress, let second = second?.baseAddress else { return false }
        return a.isEmpty || memcmp(first + a.lowerBound, second + b.lowerBound, a.count) == 0
    }
}

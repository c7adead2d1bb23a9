import Foundation

/// Records of one table found in bytes no live cell holds (fileformat2.html, "1.6"): whole
/// cells (their payload size, rowid and record all there), and cells a freeblock's header
/// overwrote the first four bytes of (payload size, rowid and the start of the record
/// header lost), rebuilt from the table's column types.
///
/// A record counts only when every serial type is one its column is stored as, its values
/// fill the record exactly, its texts are UTF-8, it fits the space it lies in, and (a Core
/// Data table's) its `Z_ENT` names an entity of the table: bytes of another kind must not
/// pass for a row.
enum CellCarver {
    struct Cell {
        let rowid: Int64?
        let values: [StoredValue]
        /// Where the cell starts in the page.
        let offset: Int
        let rebuilt: Bool
    }

    /// The cells in `region` of free space, whole or rebuilt, tried at every offset; each one
    /// found is skipped past. A cell is rebuilt only where the 4 bytes at its start are a
    /// freeblock's header (the live one, or one a later merge left inside a block), which keeps
    /// the guessing to the places SQLite freed a cell.
    static func scan(_ bytes: UnsafeRawBufferPointer, region: Range<Int>, shape: TableShape, usable: Int, _ body: (Cell) -> Void) {
        var at = region.lowerBound
        while at + 3 <= region.upperBound {
            if let (cell, end) = intactCell(bytes, at: at, limit: region.upperBound, shape: shape, usable: usable) {
                body(cell)
                at = end
            } else if freeblockHeader(bytes, at: at, limit: region.upperBound) != nil,
                      let (cell, end) = rebuilt(bytes, region: at..<region.upperBound, shape: shape, usable: usable) {
                body(cell)
                at = end
            } else {
                at += 1
            }
        }
    }

    /// A whole cell at `offset` ending by `limit`, and where it ends.
    static func intactCell(_ bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int, shape: TableShape, usable: Int) -> (Cell, Int)? {
        guard let (payload, afterSize) = FormatBytes.varint(bytes, at: offset), payload >= 2, payload < UInt64(usable),
              let (rowid, afterKey) = FormatBytes.varint(bytes, at: afterSize), afterKey - afterSize <= 9 else { return nil }
        let size = Int(payload)
        // Records that spill onto overflow pages are not carved from free space.
        guard size <= BTreePage.localPayload(size, usableSize: usable), afterKey + size <= limit,
              let values = record(bytes, at: afterKey..<(afterKey + size), shape: shape) else { return nil }
        return (Cell(rowid: Int64(bitPattern: rowid), values: values, offset: offset, rebuilt: false), afterKey + size)
    }

    /// The record at `record`, when it is one of `shape`'s rows.
    static func record(_ bytes: UnsafeRawBufferPointer, at record: Range<Int>, shape: TableShape) -> [StoredValue]? {
        guard let (types, body) = RecordFormat.serialTypes(bytes, record: record, limit: shape.columns.count + 1),
              types.count == shape.columns.count, types.enumerated().allSatisfy({ shape.accepts($0.element, column: $0.offset) }),
              let values = RecordFormat.values(bytes, types: types, body: body..<record.upperBound), shape.admits(values) else { return nil }
        return values
    }

    /// The cell a freeblock at `region` began with, rebuilt: the record header is looked for
    /// after the four overwritten bytes, the serial types they held guessed from the columns'
    /// (the rowid alias's is NULL; a lost integer's is tried at every size). A guess counts
    /// only when the record it gives ends where the freeblock does, or where another whole
    /// cell starts (adjacent freed cells merge into one freeblock). Returns the cell and where
    /// it ends, or nil when no single guess fits.
    static func rebuilt(_ bytes: UnsafeRawBufferPointer, region: Range<Int>, shape: TableShape, usable: Int) -> (Cell, Int)? {
        let lost = region.lowerBound + 4
        // Each guess that gives a record, ranked: 2 when it ends where the freeblock does or
        // where a whole cell starts, 1 when it leaves fewer than 4 bytes (fragment bytes a merge
        // took in), with the candidate; the best rank must be held by one guess alone.
        var best: (rank: Int, cell: Cell, end: Int)?
        var tied = false
        // The record header starts after the payload size and rowid varints: 2 to 6 bytes in.
        for headerStart in (region.lowerBound + 2)...(region.lowerBound + 6) where headerStart < region.upperBound {
            let lostBytes = max(0, lost - headerStart - 1)
            for guess in lostBytes < shape.lostTypeGuesses.count ? shape.lostTypeGuesses[lostBytes] : [] {
                let typesFrom = headerStart + 1 + guess.count
                guard guess.enumerated().allSatisfy({ shape.accepts($0.element, column: $0.offset) }),
                      let types = readTypes(bytes, from: typesFrom, shape: shape, firstColumn: guess.count, limit: region.upperBound) else { continue }
                let all = guess + types.types
                // The header-size byte, where the freeblock's header left it, must be the header's size.
                if headerStart >= lost, Int(bytes[headerStart]) != types.end - headerStart { continue }
                let bodySize = all.reduce(0) { $0 + (RecordFormat.size(ofSerialType: $1) ?? 0) }
                let end = types.end + bodySize
                guard end <= region.upperBound, let values = RecordFormat.values(bytes, types: all, body: types.end..<end), shape.admits(values) else { continue }
                let rank = end == region.upperBound || intactCell(bytes, at: end, limit: region.upperBound, shape: shape, usable: usable) != nil
                    || formerFreeblock(bytes, at: end, limit: region.upperBound) ? 2
                    : region.upperBound - end < 4 ? 1 : 0
                guard rank > 0 else { continue }
                if let current = best, current.rank > rank { continue }
                tied = best?.rank == rank
                if !tied { best = (rank, Cell(rowid: nil, values: values, offset: region.lowerBound, rebuilt: true), end) }
            }
        }
        guard let best, !tied else { return nil }
        return (best.cell, best.end)
    }

    /// The size a freeblock header at `offset` gives, when the 4 bytes there can be one whose
    /// block ends by `limit`: a next block after it (or none), a size of a cell at least.
    static func freeblockHeader(_ bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int) -> Int? {
        guard let next = FormatBytes.u16(bytes, offset), let size = FormatBytes.u16(bytes, offset + 2),
              size >= 6, offset + size <= limit, next == 0 || next >= offset + size else { return nil }
        return size
    }

    /// Whether a cell freed before the one ending at `offset` starts there: a freeblock header
    /// whose block ends where the region does, or where another such block or a whole cell starts.
    private static func formerFreeblock(_ bytes: UnsafeRawBufferPointer, at offset: Int, limit: Int, depth: Int = 0) -> Bool {
        guard depth < 64, let size = freeblockHeader(bytes, at: offset, limit: limit) else { return false }
        let end = offset + size
        return end == limit || formerFreeblock(bytes, at: end, limit: limit, depth: depth + 1)
    }

    /// Serial types that the first `lostTypeBytes` header bytes may have held, one byte each:
    /// every combination the columns' affinities allow for fixed-size values (a lost text or
    /// blob type cannot be told, so none is guessed).
    static func typeGuesses(shape: TableShape, lostTypeBytes: Int) -> [[UInt64]] {
        guard lostTypeBytes > 0 else { return [[]] }
        guard lostTypeBytes <= min(3, shape.columns.count) else { return [] }
        var guesses: [[UInt64]] = [[]]
        for column in 0..<lostTypeBytes {
            let options: [UInt64] = column == shape.rowidColumn ? [0] : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].filter { shape.accepts($0, column: column) }
            guesses = guesses.flatMap { prefix in options.map { prefix + [$0] } }
        }
        return guesses
    }

    /// The serial types of `shape`'s columns from `firstColumn` on, read from `offset`, and
    /// where they end; nil at the first one its column is not stored as (most offsets tried).
    private static func readTypes(_ bytes: UnsafeRawBufferPointer, from offset: Int, shape: TableShape, firstColumn: Int,
                                  limit: Int) -> (types: [UInt64], end: Int)? {
        var at = offset
        var column = firstColumn
        while column < shape.columns.count {
            guard at < limit, let (type, next) = FormatBytes.varint(bytes, at: at), next <= limit,
                  RecordFormat.size(ofSerialType: type) != nil, shape.accepts(type, column: column) else { return nil }
            at = next
            column += 1
        }
        var types: [UInt64] = []
        types.reserveCapacity(shape.columns.count - firstColumn)
        at = offset
        for _ in firstColumn..<shape.columns.count {
            guard let (type, next) = FormatBytes.varint(bytes, at: at) else { return nil }
            types.append(type)
            at = next
        }
        return (types, at)
    }
}

/// One b-tree page read from its bytes (sqlite.org/fileformat2.html, "1.6 B-tree Pages"):
/// its header, its cells, and the space between them that holds no cell.
///
/// - the header (8 bytes, 12 on interior pages; after the 100-byte file header on page 1):
///   the page type, the first freeblock, the cell count, where the cell content starts (0 is
///   65536), fragmented bytes, and an interior page's right child;
/// - the cell-pointer array after it; unallocated space from its end to the content;
/// - freeblocks: a chain, in ascending order, of a 2-byte next offset and a 2-byte size that
///   counts those 4 bytes. Freeing a cell writes this header over its first four bytes.
///
/// Everything is bounds-checked against the page: a page of another kind, one a writer was
/// still writing or one made to hurt gives nil or less, never a trap or a loop.
public struct BTreePage {
    public enum Kind: UInt8, Sendable {
        case indexInterior = 0x02, tableInterior = 0x05, indexLeaf = 0x0A, tableLeaf = 0x0D
        public var isLeaf: Bool { self == .indexLeaf || self == .tableLeaf }
    }

    /// A table-leaf cell: its rowid and where its record is.
    public struct TableCell {
        public let rowid: Int64
        /// The record's whole length (on this page and its overflow pages).
        public let payloadSize: Int
        /// The record's bytes on this page.
        public let local: Range<Int>
        /// The first overflow page, when the record spills.
        public let overflowPage: UInt32?
    }

    public let bytes: UnsafeRawBufferPointer
    public let kind: Kind
    /// Where the page header starts: 100 on page 1, else 0.
    public let headerStart: Int
    public let cellCount: Int
    public let firstFreeblock: Int
    public let contentStart: Int
    public let fragmentedBytes: Int
    public let rightChild: UInt32?
    let usableSize: Int

    public init?(_ bytes: UnsafeRawBufferPointer, pageNumber: UInt32, usableSize: Int) {
        let start = pageNumber == 1 ? DatabaseHeader.size : 0
        guard let type = FormatBytes.u8(bytes, start), let kind = Kind(rawValue: UInt8(type)),
              let freeblock = FormatBytes.u16(bytes, start + 1), let cells = FormatBytes.u16(bytes, start + 3),
              let content = FormatBytes.u16(bytes, start + 5), let fragmented = FormatBytes.u8(bytes, start + 7) else { return nil }
        self.bytes = bytes
        self.kind = kind
        headerStart = start
        cellCount = cells
        firstFreeblock = freeblock
        contentStart = content == 0 ? 65536 : content
        fragmentedBytes = fragmented
        rightChild = kind.isLeaf ? nil : FormatBytes.u32(bytes, start + 8)
        self.usableSize = min(usableSize, bytes.count)
        // SQLite's smallest usable size (512-byte pages, 32 reserved bytes): the payload
        // arithmetic below divides by it less 4 and goes negative under it.
        guard self.usableSize >= 480, pointerArrayEnd <= bytes.count else { return nil }
    }

    var headerSize: Int { kind.isLeaf ? 8 : 12 }
    var pointerArrayEnd: Int { headerStart + headerSize + cellCount * 2 }

    /// Where cell `index` starts, or nil when its pointer leaves the page.
    public func cellOffset(_ index: Int) -> Int? {
        guard index >= 0, index < cellCount, let pointer = FormatBytes.u16(bytes, headerStart + headerSize + index * 2),
              pointer >= pointerArrayEnd, pointer < usableSize else { return nil }
        return pointer
    }

    /// The space between the cell-pointer array and the cell content: never written by a
    /// cell since the page was last laid out, it can hold older cells.
    public var unallocated: Range<Int> {
        let end = min(contentStart, usableSize)
        return pointerArrayEnd < end ? pointerArrayEnd..<end : pointerArrayEnd..<pointerArrayEnd
    }

    /// The freeblocks' ranges, in chain order, each at least 4 bytes. A chain that goes
    /// backwards, overlaps or leaves the page ends there (SQLite keeps it ascending).
    public var freeblocks: [Range<Int>] {
        var result: [Range<Int>] = []
        var offset = firstFreeblock
        var floor = pointerArrayEnd
        while offset != 0, result.count < usableSize / 4 {
            guard offset >= floor, let next = FormatBytes.u16(bytes, offset), let size = FormatBytes.u16(bytes, offset + 2),
                  size >= 4, offset + size <= usableSize else { break }
            result.append(offset..<(offset + size))
            floor = offset + size
            offset = next
        }
        return result
    }

    /// The table-leaf cell at `offset`: payload size, rowid, the record's local bytes and its
    /// first overflow page.
    public func tableCell(at offset: Int) -> TableCell? {
        guard kind == .tableLeaf, let (payload, afterSize) = FormatBytes.varint(bytes, at: offset),
              let (rowid, afterKey) = FormatBytes.varint(bytes, at: afterSize), payload <= UInt64(Int32.max) else { return nil }
        let size = Int(payload)
        let local = Self.localPayload(size, usableSize: usableSize)
        guard afterKey + local <= usableSize else { return nil }
        var overflow: UInt32?
        if local < size {
            guard let page = FormatBytes.u32(bytes, afterKey + local) else { return nil }
            overflow = page
        }
        return TableCell(rowid: Int64(bitPattern: rowid), payloadSize: size, local: afterKey..<(afterKey + local), overflowPage: overflow)
    }

    /// An interior page's children in key order, each cell's left child and then the right
    /// child; nil for a leaf, or when a pointer leaves the page.
    public var childPages: [UInt32]? {
        guard !kind.isLeaf, let rightChild else { return nil }
        var children: [UInt32] = []
        children.reserveCapacity(cellCount + 1)
        for index in 0..<cellCount {
            guard let offset = cellOffset(index), let child = FormatBytes.u32(bytes, offset) else { return nil }
            children.append(child)
        }
        children.append(rightChild)
        return children
    }

    /// The rowid of the table-leaf cell at `offset`, its payload not looked at (a walk of a
    /// table's keys reads a million of them).
    public func tableCellRowid(at offset: Int) -> Int64? {
        guard kind == .tableLeaf, let (_, afterSize) = FormatBytes.varint(bytes, at: offset),
              let (rowid, _) = FormatBytes.varint(bytes, at: afterSize) else { return nil }
        return Int64(bitPattern: rowid)
    }

    /// The cells of a table leaf, in key order; cells that do not parse are skipped.
    public var tableCells: [TableCell] {
        (0..<cellCount).compactMap { cellOffset($0).flatMap(tableCell(at:)) }
    }

    /// Bytes of a table-leaf cell's payload kept on the leaf itself (fileformat2.html, "1.6":
    /// X = U-35, M = ((U-12)*32/255)-23, K = M+((P-M) % (U-4))); the rest is on overflow pages.
    public static func localPayload(_ payload: Int, usableSize: Int) -> Int {
        guard usableSize >= 480 else { return min(max(0, payload), max(0, usableSize)) }
        let most = usableSize - 35
        guard payload > most else { return payload }
        let least = (usableSize - 12) * 32 / 255 - 23
        let kept = least + (payload - least) % (usableSize - 4)
        return kept <= most ? kept : least
    }
}

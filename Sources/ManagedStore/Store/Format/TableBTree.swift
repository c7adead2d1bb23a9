/// A row of a table b-tree found by its rowid, page by page (sqlite.org/fileformat2.html,
/// "1.6 B-tree Pages"): from the root, each interior page's cells hold a left child and the
/// largest rowid in it, the right child the rest; the leaf holds the row's cell.
///
/// The pages come from `read`, so the same search runs on any generation (the main file, a
/// frame of the `-wal`). A search reads at most `maximumDepth` pages (a loop ends there) and
/// stops at a page of another kind or a cut page, answering nil: the tree may be hostile.
public enum TableBTree {
    static let maximumDepth = 40

    /// What a search finds: the row, a leaf that does not hold it, or a tree it could not
    /// follow (a page that does not read, of another kind, a pointer out of the page, a loop).
    public enum Search<T> {
        case found(T)
        case absent
        case broken
    }

    /// Calls `found` with the leaf holding row `rowid` and the record's local bytes in it,
    /// and answers what it answers; nil when the tree holds no such row (or cannot be read).
    /// A page `read` returns need stay valid only until the next read.
    public static func find<T>(_ rowid: Int64, root: UInt32, usableSize: Int, read: (UInt32) -> UnsafeRawBufferPointer?,
                               _ found: (UnsafeRawBufferPointer, Range<Int>) -> T) -> T? {
        if case .found(let value) = search(rowid, root: root, usableSize: usableSize, read: read, found) { return value }
        return nil
    }

    /// As `find`, telling a row the tree does not hold from a tree that cannot be followed.
    ///
    /// No set of pages seen: a loop reads the same pages again, and the depth bound ends it
    /// with the same answer a set would give, without an allocation per search.
    public static func search<T>(_ rowid: Int64, root: UInt32, usableSize: Int, read: (UInt32) -> UnsafeRawBufferPointer?,
                                 _ found: (UnsafeRawBufferPointer, Range<Int>) -> T) -> Search<T> {
        var number = root
        for _ in 0..<maximumDepth {
            guard number > 0, let raw = read(number), let page = BTreePage(raw, pageNumber: number, usableSize: usableSize) else { return .broken }
            switch page.kind {
            case .tableLeaf:
                var low = 0, high = page.cellCount
                while low < high {
                    let middle = (low + high) / 2
                    guard let offset = page.cellOffset(middle), let cell = page.tableCell(at: offset) else { return .broken }
                    if cell.rowid == rowid { return .found(found(raw, cell.local)) }
                    if cell.rowid < rowid { low = middle + 1 } else { high = middle }
                }
                return .absent
            case .tableInterior:
                // The first cell whose key is at least rowid holds it in its left child.
                var low = 0, high = page.cellCount
                while low < high {
                    let middle = (low + high) / 2
                    guard let offset = page.cellOffset(middle), let (key, _) = FormatBytes.varint(raw, at: offset + 4) else { return .broken }
                    if Int64(bitPattern: key) < rowid { low = middle + 1 } else { high = middle }
                }
                guard let child = low == page.cellCount ? page.rightChild : page.cellOffset(low).flatMap({ FormatBytes.u32(raw, $0) }) else { return .broken }
                number = child
            default:
                return .broken
            }
        }
        return .broken
    }
}

/// A row of a table b-tree found by its rowid, page by page (sqlite.org/fileformat2.html,
/// "1.6 B-tree Pages"): from the root, each interior page's cells hold a left child and the
/// largest rowid in it, the right child the rest; the leaf holds the row's cell.
///
/// The pages come from `read`, so the same search runs on any generation (the main file, a
/// frame of the `-wal`). A search reads at most `maximumDepth` pages and stops at a page of
/// another kind, a loop or a cut page, answering nil: the tree may be hostile.
public enum TableBTree {
    static let maximumDepth = 40

    private enum Step { case child(UInt32), leaf, fail }

    /// The record of row `rowid`: the leaf's bytes and the record's local bytes in them, or
    /// nil when the tree holds no such row (or cannot be read).
    public static func find(_ rowid: Int64, root: UInt32, usableSize: Int, read: (UInt32) -> [UInt8]?) -> (page: [UInt8], record: Range<Int>)? {
        var number = root
        var seen: Set<UInt32> = []
        for _ in 0..<maximumDepth {
            guard number > 0, seen.insert(number).inserted, let bytes = read(number) else { return nil }
            let step = bytes.withUnsafeBytes { raw -> Step in
                guard let page = BTreePage(raw, pageNumber: number, usableSize: usableSize) else { return .fail }
                switch page.kind {
                case .tableLeaf: return .leaf
                case .tableInterior:
                    // The first cell whose key is at least rowid holds it in its left child.
                    var low = 0, high = page.cellCount
                    while low < high {
                        let middle = (low + high) / 2
                        guard let offset = page.cellOffset(middle), let (key, _) = FormatBytes.varint(raw, at: offset + 4) else { return .fail }
                        if Int64(bitPattern: key) < rowid { low = middle + 1 } else { high = middle }
                    }
                    let child = low == page.cellCount ? page.rightChild : page.cellOffset(low).flatMap { FormatBytes.u32(raw, $0) }
                    return child.map(Step.child) ?? .fail
                default: return .fail
                }
            }
            switch step {
            case .fail: return nil
            case .child(let child):
                number = child
                continue
            case .leaf: break
            }
            // A leaf (or nothing): look for the cell.
            return bytes.withUnsafeBytes { raw in
                guard let page = BTreePage(raw, pageNumber: number, usableSize: usableSize), page.kind == .tableLeaf else { return nil }
                var low = 0, high = page.cellCount
                while low < high {
                    let middle = (low + high) / 2
                    guard let offset = page.cellOffset(middle), let cell = page.tableCell(at: offset) else { return nil }
                    if cell.rowid == rowid { return (bytes, cell.local) }
                    if cell.rowid < rowid { low = middle + 1 } else { high = middle }
                }
                return nil
            }
        }
        return nil
    }
}

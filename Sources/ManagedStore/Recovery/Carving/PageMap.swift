import Foundation

/// A database file's pages, read with `pread` into one window, and what each
/// page is: a page of some b-tree (which table's leaf, for a table), a freelist page, or
/// none (fileformat2.html, "1.5 The Freelist", "1.6 B-tree Pages").
///
/// Every b-tree is walked from its root, each page visited at most once, so a loop, a page
/// claimed by two trees or a child past the file's end ends that branch, never the walk.
final class PageMap {
    enum Owner: Equatable {
        case none
        /// A page of the b-tree of `shapes[index]` (a table), a leaf or not.
        case table(index: Int, leaf: Bool)
        /// A page of the schema table's b-tree (`sqlite_master`, rooted at page 1).
        case schema
        /// A page of an index, or of a table not carved.
        case otherTree
        case freelist
    }

    let pageSize: Int
    let usableSize: Int
    let pageCount: Int
    private let descriptor: Int32
    /// Up to `windowPages` pages read with one call: a run of pages read in order (the carving
    /// pass reads every page) costs one `pread` a window, not one a page.
    private var buffer: [UInt8]
    private static let windowPages = 64
    /// The pages the window holds, and the page read before (a read of the next one starts a run).
    private var window: Range<Int> = 0..<0
    private var previous = 0
    private(set) var owners: [Owner]

    /// Opens `path` read-only; nil when it cannot be read or is no database.
    init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        var header = [UInt8](repeating: 0, count: DatabaseHeader.size)
        guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, DatabaseHeader.size, 0) }) == DatabaseHeader.size,
              let parsed = header.withUnsafeBytes({ DatabaseHeader($0) }), parsed.pageSize >= 512,
              fstat(fd, &info) == 0, Int(info.st_size) >= parsed.pageSize else {
            close(fd)
            return nil
        }
        descriptor = fd
        pageSize = parsed.pageSize
        usableSize = parsed.usableSize
        pageCount = Int(info.st_size) / parsed.pageSize
        buffer = [UInt8](repeating: 0, count: parsed.pageSize * Self.windowPages)
        owners = Array(repeating: .none, count: pageCount + 1)
    }

    deinit { close(descriptor) }

    /// Calls `body` with page `number`'s bytes (valid during the call); nil when it cannot be read.
    func withPage<T>(_ number: UInt32, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        let number = Int(number)
        guard number >= 1, number <= pageCount else { return nil }
        let size = pageSize
        defer { previous = number }
        if !window.contains(number) {
            // In a run, the window ahead; elsewhere (a tree's walk) the page alone.
            let count = number == previous + 1 ? min(Self.windowPages, pageCount - number + 1) : 1
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size * count, off_t(Int64(number - 1) * Int64(size))) }
            guard got >= size else {
                window = 0..<0
                return nil
            }
            window = number..<(number + got / size)
        }
        let start = (number - window.lowerBound) * size
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + size)])) }
    }

    /// The kind byte of page `number`'s b-tree header, read alone: a leaf's page need not be
    /// read whole to be placed (its parent names its tree), only an interior page's.
    private func kind(_ number: UInt32) -> BTreePage.Kind? {
        // A child pointer is user input: page 0, or past the file's end, is no page.
        guard number >= 1, Int(number) <= pageCount else { return nil }
        var flag: UInt8 = 0
        let offset = Int64(number - 1) * Int64(pageSize) + (number == 1 ? Int64(DatabaseHeader.size) : 0)
        guard pread(descriptor, &flag, 1, off_t(offset)) == 1 else { return nil }
        return BTreePage.Kind(rawValue: flag)
    }

    /// Marks the pages of the b-tree at `root` as `owner`'s (`.table` gets `leaf` set per page).
    func walk(root: UInt32, as owner: Owner) {
        /// Page `number` marked as `owner`'s (a table's, with whether it is a leaf).
        func place(_ number: UInt32, leaf: Bool) {
            if case .table(let index, _) = owner { owners[Int(number)] = .table(index: index, leaf: leaf) } else { owners[Int(number)] = owner }
        }
        var pending = [root]
        while let number = pending.popLast() {
            guard Int(number) <= pageCount, number >= 1, owners[Int(number)] == .none else { continue }
            if let kind = kind(number), kind.isLeaf {
                place(number, leaf: true)
                continue
            }
            let children: [UInt32]? = withPage(number) { bytes in
                guard let page = BTreePage(bytes, pageNumber: number, usableSize: usableSize) else { return nil }
                place(number, leaf: page.kind.isLeaf)
                guard !page.kind.isLeaf else { return [] }
                // Leniently: the pointers that read, on a page that is partly damaged.
                var children: [UInt32] = []
                for index in 0..<page.cellCount {
                    if let offset = page.cellOffset(index), let child = FormatBytes.u32(bytes, offset) { children.append(child) }
                }
                if let right = page.rightChild { children.append(right) }
                return children
            } ?? nil
            guard let children, !children.isEmpty else { continue }
            // A b-tree keeps every leaf at one depth: when the first and last children are
            // leaves, so are the others, which are placed without a read each (a table of a
            // million rows has some 20,000). A damaged page among them that is no leaf is not
            // carved as one (the carving reads its header), and its own children, placed in no
            // tree, are compared with the live rows as every such page's cells are.
            if let first = children.first, let last = children.last, kind(first)?.isLeaf == true, kind(last)?.isLeaf == true {
                for child in children where Int(child) <= pageCount && child >= 1 && owners[Int(child)] == .none { place(child, leaf: true) }
                continue
            }
            // Leftmost first: a tree written in order lies in runs of pages that read together.
            pending += children.reversed()
        }
    }

    /// Marks the freelist's trunk and leaf pages (header offsets 32 and 36).
    func walkFreelist() {
        guard let (first, total) = withPage(1, { bytes in (FormatBytes.u32(bytes, 32) ?? 0, FormatBytes.u32(bytes, 36) ?? 0) }) else { return }
        var trunk = first
        var seen = 0
        while trunk != 0, Int(trunk) <= pageCount, owners[Int(trunk)] == .none, seen <= Int(total) {
            owners[Int(trunk)] = .freelist
            seen += 1
            let next: (UInt32, [UInt32])? = withPage(trunk) { bytes in
                let count = min(Int(FormatBytes.u32(bytes, 4) ?? 0), (usableSize - 8) / 4)
                return (FormatBytes.u32(bytes, 0) ?? 0, (0..<count).compactMap { FormatBytes.u32(bytes, 8 + $0 * 4) })
            }
            guard let (following, leaves) = next else { break }
            for leaf in leaves where Int(leaf) <= pageCount && leaf >= 1 && owners[Int(leaf)] == .none {
                owners[Int(leaf)] = .freelist
                seen += 1
            }
            trunk = following
        }
    }
}

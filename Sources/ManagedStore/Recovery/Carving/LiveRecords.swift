import Foundation
import GRDB

/// The store's newest state (or the generation it was opened at) read with the format
/// reader, for `LiveRowSet`: a row by its rowid, and every row of a table, with no SQL
/// statement per record (on a million-row store, one a carved record cost more than the
/// carving). Anything it cannot read as SQLite would (a page that does not read, a record
/// that spills onto overflow pages) it says so, and the caller asks SQLite instead.
final class LiveRecords {
    enum Lookup {
        case absent
        case present([StoredValue])
        /// Not known from the pages: ask SQLite.
        case unknown
    }

    private let pages: GenerationPages
    private let image: GenerationImage
    private let usable: Int
    /// Each table's root page in that state, by uppercased name.
    private let roots: [String: UInt32]
    private let wal: Int32
    private let main: Int32
    private let frameCount: Int
    /// Each walked table's scan, by uppercased name.
    private var scans: [String: LiveTableScan] = [:]

    init?(store: PersistentStore) {
        guard let timeline = try? StoreTimeline.read(path: store.path),
              let image = try? timeline.image(store.options.generation ?? timeline.newestToken),
              let main = HeldDescriptors.kept(timeline.mainPath),
              let roots = try? store.reader.read(TableRoots.read) else { return nil }
        wal = open(timeline.mainPath + "-wal", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        self.main = main
        frameCount = timeline.log?.frames.count ?? 0
        self.image = image
        self.roots = roots
        usable = timeline.header.usableSize
        pages = GenerationPages(pageSize: timeline.header.pageSize, frameCount: frameCount, main: main, wal: wal)
    }

    deinit { if wal >= 0 { close(wal) } }

    /// Row `rowid` of `table`.
    func row(_ rowid: Int64, table: String) -> Lookup {
        guard let root = roots[table.uppercased()] else { return .unknown }
        pages.failed = false
        let search = TableBTree.search(rowid, root: root, usableSize: usable, read: { self.pages.page($0, in: self.image) }) { page, record in
            RecordFormat.values(page, record: record)
        }
        guard !pages.failed else { return .unknown }
        switch search {
        case .found(let values?): return .present(values)
        case .absent: return .absent
        // A record that spills onto overflow pages, or a tree the pages cannot follow: SQLite says.
        case .found(nil), .broken: return .unknown
        }
    }

    /// What one walk of `table`'s leaves tells (its rows' digests only when `digests`), kept:
    /// the carving and the missing keys ask of the same tables, and a walk of a million rows
    /// is worth doing once. A large table is walked in two halves at once, the upper on a
    /// thread of its own: the carving waits for the digests, and nothing else runs meanwhile.
    func scan(_ table: String, digests wantsDigests: Bool) -> LiveTableScan {
        let key = table.uppercased()
        if let done = scans[key], done.askedForDigests || !wantsDigests { return done }
        var scan = LiveTableScan(askedForDigests: wantsDigests)
        defer { scans[key] = scan }
        guard let root = roots[key] else { return scan }
        var walk = TableWalk(digests: wantsDigests, fromKeyOne: true)
        var complete: Bool
        if ProcessInfo.processInfo.activeProcessorCount > 1, let children = children(of: root), children.count >= 4 {
            let lower = Array(children[..<(children.count / 2)]), upper = Array(children[(children.count / 2)...])
            let other = GenerationPages(pageSize: pages.pageSize, frameCount: frameCount, main: main, wal: wal)
            let higher = Background { [self] in
                var walk = TableWalk(digests: wantsDigests, fromKeyOne: false)
                return (cells(from: upper, pages: other, keysOnly: !wantsDigests) { walk.add($0, $1) }, walk)
            }
            complete = cells(from: lower, pages: pages, keysOnly: !wantsDigests) { walk.add($0, $1) }
            if let (done, upperWalk) = try? higher.value(), done { walk.append(upperWalk) } else { complete = false }
        } else {
            complete = cells(from: [root], pages: pages, keysOnly: !wantsDigests) { walk.add($0, $1) }
        }
        if complete {
            scan.digests = walk.digests.map(RowDigests.init)
            scan.keyGaps = walk.gaps
            scan.nextKey = walk.next
        }
        return scan
    }

    /// The children of interior page `number`, in key order; nil for a leaf or a page that does not read.
    private func children(of number: UInt32) -> [UInt32]? {
        pages.failed = false
        guard let bytes = pages.page(number, in: image), !pages.failed, let page = BTreePage(bytes, pageNumber: number, usableSize: usable),
              page.kind == .tableInterior else { return nil }
        return page.childPages
    }

    /// Hands every cell of the subtrees at `starts` (in key order) to `body`, leaves read through
    /// `pages` (false from `body` stops the walk); false when the walk did not reach every cell.
    private func cells(from starts: [UInt32], pages: GenerationPages, keysOnly: Bool,
                       _ body: (UnsafeRawBufferPointer, BTreePage.TableCell) -> Bool) -> Bool {
        pages.failed = false
        var pending = Array(starts.reversed())
        var seen = Set<UInt32>()
        while let number = pending.popLast() {
            guard seen.insert(number).inserted, seen.count <= image.pageCount else { return false }
            let ok: Bool = {
                guard let bytes = pages.page(number, in: image), let page = BTreePage(bytes, pageNumber: number, usableSize: usable) else { return false }
                switch page.kind {
                case .tableInterior:
                    // The right child last in key order, so first on the stack.
                    guard let children = page.childPages else { return false }
                    pending += children.reversed()
                    return true
                case .tableLeaf:
                    for index in 0..<page.cellCount {
                        guard let offset = page.cellOffset(index) else { return false }
                        // Only the key, where that is all the walk wants: no record's size worked out.
                        if keysOnly {
                            guard let rowid = page.tableCellRowid(at: offset),
                                  body(bytes, BTreePage.TableCell(rowid: rowid, payloadSize: 0, local: 0..<0, overflowPage: nil)) else { return false }
                            continue
                        }
                        guard let cell = page.tableCell(at: offset), body(bytes, cell) else { return false }
                    }
                    return true
                default:
                    return false
                }
            }()
            guard ok, !pages.failed else { return false }
        }
        return true
    }
}

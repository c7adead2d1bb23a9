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

    init?(store: PersistentStore) {
        guard let timeline = try? StoreTimeline.read(path: store.path),
              let image = try? timeline.image(store.options.generation ?? timeline.newestToken),
              let main = HeldDescriptors.kept(timeline.mainPath),
              let roots = try? store.reader.read(TableRoots.read) else { return nil }
        wal = open(timeline.mainPath + "-wal", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        self.image = image
        self.roots = roots
        usable = timeline.header.usableSize
        pages = GenerationPages(pageSize: timeline.header.pageSize, frameCount: timeline.log?.frames.count ?? 0, main: main, wal: wal)
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

    /// Hands every row of `table` to `body`, leaf by leaf; false (the rows handed so far are
    /// not all of them) when a page does not read or a record spills onto overflow pages.
    func allRows(_ table: String, _ body: ([StoredValue]) -> Void) -> Bool {
        guard let root = roots[table.uppercased()] else { return false }
        pages.failed = false
        var pending = [root]
        var seen = Set<UInt32>()
        while let number = pending.popLast() {
            guard seen.insert(number).inserted, seen.count <= image.pageCount else { return false }
            let ok: Bool = {
                guard let bytes = pages.page(number, in: image), let page = BTreePage(bytes, pageNumber: number, usableSize: usable) else { return false }
                switch page.kind {
                case .tableInterior:
                    for index in 0..<page.cellCount {
                        guard let offset = page.cellOffset(index), let child = FormatBytes.u32(bytes, offset) else { return false }
                        pending.append(child)
                    }
                    guard let right = page.rightChild else { return false }
                    pending.append(right)
                    return true
                case .tableLeaf:
                    for index in 0..<page.cellCount {
                        guard let offset = page.cellOffset(index), let cell = page.tableCell(at: offset), cell.payloadSize == cell.local.count,
                              let values = RecordFormat.values(bytes, record: cell.local) else { return false }
                        body(values)
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

import Foundation
import GRDB

/// What one commit of the `-wal` did, in Core Data's terms: per entity, the objects it
/// inserted, updated and deleted, and the persistent-history transaction it carries.
public struct CommitChanges: Sendable {
    public struct Counts: Sendable, Equatable {
        public var inserted = 0
        public var updated = 0
        public var deleted = 0
        public var total: Int { inserted + updated + deleted }
    }

    /// Per entity name (the row's own entity, a sub-entity where it is one).
    public var entities: [String: Counts] = [:]
    /// The history transactions the commit wrote (usually one), when the store keeps history.
    public var transactions: [HistoryTransaction] = []
}

/// Reads each commit's changes from the pages it wrote, as the format reader sees them, then
/// checks every candidate against SQLite's own reading of the generations either side.
///
/// A row lives on one leaf of its table, so an insert, update or delete rewrites that leaf,
/// and a row that moves between leaves rewrites both: the rows on the pages a commit wrote,
/// before and after, hold every row it changed. Which table a leaf belongs to is told by its
/// rows (`Z_PK` as the rowid, a NULL first column, then `Z_ENT` and `Z_OPT`, as every Core
/// Data entity table lays them out). Pages alone can mislead (a freed leaf keeps its old rows;
/// a page reused from the freelist held another table's), so each candidate is looked up by
/// key in both generations before it is counted: the counts are what `diff` between the two
/// tokens finds, at the cost of the pages written rather than of the tables.
public enum CommitChangeReader {
    public static func read(_ store: PersistentStore, timeline: StoreTimeline,
                            _ body: (StoreTimeline.Entry, CommitChanges?) throws -> Void) throws {
        let wal = open(timeline.mainPath + "-wal", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        defer { if wal >= 0 { close(wal) } }
        guard let log = timeline.log, log.header != nil, wal >= 0, let main = HeldDescriptors.kept(timeline.mainPath) else {
            for entry in timeline.entries { try body(entry, nil) }
            return
        }
        let usable = timeline.header.usableSize
        let roots = try store.read { db in
            Dictionary(try Row.fetchAll(db, sql: "SELECT name, rootpage FROM sqlite_master WHERE type = 'table'").compactMap { row -> (String, UInt32)? in
                guard let name: String = row.lenient("name"), let root: Int64 = row.lenient("rootpage"), root > 0, root <= Int64(UInt32.max) else { return nil }
                return (name.uppercased(), UInt32(root))
            }, uniquingKeysWith: { a, _ in a })
        }
        // Per Z_ENT: the entity and its table's root page.
        var tables: [Int: (entity: EntityMapping, root: UInt32)] = [:]
        for entity in store.mapping.entities {
            if let id = entity.entityID, let root = roots[entity.table.uppercased()], tables[id] == nil { tables[id] = (entity, root) }
        }
        let history = try? PersistentHistory(store: store)
        var cache = PageCache()
        var previous = Side(timeline.image(ordinal: 0), main: main, wal: wal)
        // The newest history transaction the generation before the commit holds, once known
        // (the previous commit's read tells it): nil, not known yet.
        var newestTransaction: Int64?? = nil
        for entry in timeline.entries {
            guard entry.kind == .commit, let frames = entry.frames, let ordinal = Int(entry.token.dropFirst()) else { try body(entry, nil); continue }
            try Cancellation.check()
            let current = Side(timeline.image(ordinal: ordinal), main: main, wal: wal)
            defer { previous = current }
            // A commit a checkpoint has copied into the main file: the main file no longer
            // holds the pages as they were before it, so what it changed cannot be told (nil).
            if frames.lowerBound <= timeline.backfilledFrames {
                newestTransaction = nil
                try body(entry, nil)
                continue
            }
            // The pages the commit wrote, each before and after it: the rows that differ.
            var written = Set<UInt32>()
            for number in frames { written.insert(log.frames[number - 1].page) }
            var candidates: [RowKey: Candidate] = [:]
            for page in written {
                let before = cache.page(page, previous), after = cache.page(page, current)
                LeafDiff.rows(before, after, page: page, usable: usable, known: { tables[Int($0)] != nil }) { row in
                    guard let root = tables[Int(row.entity)]?.root else { return }
                    let key = RowKey(root: root, key: row.rowid)
                    // A row that moved between pages is seen on both: once is enough.
                    candidates[key] = Candidate(entity: row.entity, bytesChanged: row.bytesChanged || candidates[key]?.bytesChanged == true,
                                                before: row.before ?? candidates[key]?.before, after: row.after ?? candidates[key]?.after)
                }
            }
            var changes = CommitChanges()
            for (key, candidate) in candidates {
                guard let table = tables[Int(candidate.entity)] else { continue }
                // The row as each generation's own b-tree holds it: pages alone can mislead.
                let was = previous.lookup(key.key, root: key.root, usable: usable, cache: &cache)
                let now = current.lookup(key.key, root: key.root, usable: usable, cache: &cache)
                let kind: WritableKeyPath<CommitChanges.Counts, Int>
                switch (was, now) {
                case (nil, _?): kind = \.inserted
                case (_?, nil): kind = \.deleted
                case (let w?, let n?) where w.version != n.version: kind = \.updated
                case (let w?, let n?):
                    // Same Z_OPT: an update only where one leaf held both copies of this row, and they differ.
                    guard candidate.bytesChanged, candidate.before == w.version, candidate.after == n.version else { continue }
                    kind = \.updated
                default: continue
                }
                let own = (now ?? was).flatMap { tables[Int($0.entity)]?.entity } ?? table.entity
                changes.entities[own.name, default: .init()][keyPath: kind] += 1
            }
            if let history {
                changes.transactions = try transactions(history, store: store, timeline: timeline, ordinal: ordinal, after: &newestTransaction)
            }
            try body(entry, changes)
        }
    }

    /// The history transactions commit `ordinal` wrote: those after the newest the generation
    /// before it holds (`after`, read there when not known yet), read by SQLite at the commit's
    /// generation, which then tells the newest for the next commit.
    private static func transactions(_ history: PersistentHistory, store: PersistentStore, timeline: StoreTimeline,
                                     ordinal: Int, after: inout Int64??) throws -> [HistoryTransaction] {
        let newest = "SELECT max(Z_PK) FROM ATRANSACTION"
        var query = HistoryQuery()
        if let known = after {
            query.after = known
        } else {
            query.after = try connection(timeline, ordinal: ordinal - 1, store: store) { db in try Int64.fetchOne(db, sql: newest) }
        }
        let (found, last) = try connection(timeline, ordinal: ordinal, store: store) { db -> ([HistoryTransaction], Int64?) in
            var found: [HistoryTransaction] = []
            try history.transactions(query, db) { found.append($0) }
            return (found, try Int64.fetchOne(db, sql: newest))
        }
        after = .some(last)
        return found
    }

    private static func connection<T>(_ timeline: StoreTimeline, ordinal: Int, store: PersistentStore, _ body: (Database) throws -> T) throws -> T {
        let file = try store.file.reading(generation: "w\(ordinal)", in: timeline)
        let queue = try StoreConnection.open(file, readonly: true)
        defer { try? StoreConnection.close(queue) }
        do {
            return try queue.read(body)
        } catch {
            throw StoreConnection.translate(error, file: file)
        }
    }

    /// A row's identity: keys are unique within a table (its b-tree's root), not across tables.
    struct RowKey: Hashable {
        let root: UInt32
        let key: Int64
    }

    /// A row a commit's pages show changed: its `Z_OPT` before and after where a page held it,
    /// and whether one page held both copies with other bytes.
    struct Candidate {
        let entity: Int64
        let bytesChanged: Bool
        let before: Int64?
        let after: Int64?
    }

    /// One generation's pages, read beside SQLite through its image.
    struct Side {
        let image: GenerationImage
        let main: Int32
        let wal: Int32

        init(_ image: GenerationImage, main: Int32, wal: Int32) {
            (self.image, self.main, self.wal) = (image, main, wal)
        }

        /// `Z_ENT` and `Z_OPT` of row `key` in the table rooted at `root`, or nil.
        func lookup(_ key: Int64, root: UInt32, usable: Int, cache: inout PageCache) -> (entity: Int64, version: Int64)? {
            guard let (page, record) = TableBTree.find(key, root: root, usableSize: usable, read: { cache.page($0, self) }) else { return nil }
            return page.withUnsafeBytes { bytes in
                RecordFormat.entityRow(bytes, record: record)
            }
        }
    }

    /// Pages read, by page and the frame they came from (0: the main file): interior pages
    /// change rarely, so one copy serves every generation that reads it. Bounded: cleared
    /// when full.
    struct PageCache {
        /// Bytes of pages kept, whatever the page size.
        static let capacity = 8 << 20
        private var pages: [Int64: [UInt8]] = [:]
        private var bytes = 0

        mutating func page(_ number: UInt32, _ side: Side) -> [UInt8]? {
            let frame = side.image.frames?.frame(holding: number, upTo: side.image.lastFrame) ?? 0
            let key = Int64(number) << 32 | Int64(frame)
            if let found = pages[key] { return found }
            guard let bytes = side.image.page(number, main: side.main, wal: side.wal) else { return nil }
            if self.bytes + bytes.count > Self.capacity {
                pages.removeAll(keepingCapacity: true)
                self.bytes = 0
            }
            pages[key] = bytes
            self.bytes += bytes.count
            return bytes
        }
    }
}

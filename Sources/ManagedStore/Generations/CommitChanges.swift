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
        let entitiesByID = Dictionary(store.mapping.entities.compactMap { e in e.entityID.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
        let roots = try store.read { db in
            Dictionary(try Row.fetchAll(db, sql: "SELECT name, rootpage FROM sqlite_master WHERE type = 'table'").compactMap { row -> (String, UInt32)? in
                guard let name: String = row.lenient("name"), let root: Int64 = row.lenient("rootpage"), root > 0, root <= Int64(UInt32.max) else { return nil }
                return (name.uppercased(), UInt32(root))
            }, uniquingKeysWith: { a, _ in a })
        }
        let history = try? PersistentHistory(store: store)
        var cache = PageCache()
        var previous = Side(timeline.image(ordinal: 0), main: main, wal: wal)
        for entry in timeline.entries {
            guard entry.kind == .commit, let frames = entry.frames, let ordinal = Int(entry.token.dropFirst()) else { try body(entry, nil); continue }
            try Cancellation.check()
            let current = Side(timeline.image(ordinal: ordinal), main: main, wal: wal)
            defer { previous = current }
            // A commit a checkpoint has copied into the main file: the main file no longer
            // holds the pages as they were before it, so what it changed cannot be told (nil).
            if frames.lowerBound <= timeline.backfilledFrames {
                try body(entry, nil)
                continue
            }
            // The pages the commit wrote, each before and after it.
            var written = Set<UInt32>()
            for number in frames { written.insert(log.frames[number - 1].page) }
            var oldRows: [RowKey: RowVersion] = [:], newRows: [RowKey: RowVersion] = [:]
            for page in written {
                if let before = cache.page(page, previous) { rows(before, page: page, usable: usable, entities: entitiesByID) { oldRows[$0.id] = $0 } }
                if let after = cache.page(page, current) { rows(after, page: page, usable: usable, entities: entitiesByID) { newRows[$0.id] = $0 } }
            }
            var candidates: [Candidate] = []
            for (key, row) in newRows {
                let old = oldRows[key]
                if old == nil || old?.version != row.version || old?.record != row.record { candidates.append(Candidate(after: row, before: old)) }
            }
            for (key, row) in oldRows where newRows[key] == nil { candidates.append(Candidate(after: nil, before: row)) }
            var changes = CommitChanges()
            for candidate in candidates {
                guard let probe = candidate.after ?? candidate.before, let entity = entitiesByID[Int(probe.entity)],
                      let root = roots[entity.table.uppercased()] else { continue }
                // The row as each generation's own b-tree holds it: pages alone can mislead.
                let was = previous.lookup(probe.key, root: root, usable: usable, cache: &cache)
                let now = current.lookup(probe.key, root: root, usable: usable, cache: &cache)
                let kind: WritableKeyPath<CommitChanges.Counts, Int>
                switch (was, now) {
                case (nil, _?): kind = \.inserted
                case (_?, nil): kind = \.deleted
                case (let w?, let n?) where w.version != n.version: kind = \.updated
                case (let w?, let n?):
                    // Same Z_OPT: an update only where both leaf copies are this row's and differ.
                    guard let before = candidate.before, let after = candidate.after, before.version == w.version,
                          after.version == n.version, before.record != after.record else { continue }
                    kind = \.updated
                default: continue
                }
                let own = (now ?? was).flatMap { entitiesByID[Int($0.entity)] } ?? entity
                changes.entities[own.name, default: .init()][keyPath: kind] += 1
            }
            if let history {
                changes.transactions = try transactions(history, store: store, timeline: timeline, ordinal: ordinal)
            }
            try body(entry, changes)
        }
    }

    /// The history transactions commit `ordinal` wrote: those after the newest the generation
    /// before it holds, read by SQLite at the commit's generation.
    private static func transactions(_ history: PersistentHistory, store: PersistentStore, timeline: StoreTimeline,
                                     ordinal: Int) throws -> [HistoryTransaction] {
        let last = try connection(timeline, ordinal: ordinal - 1, store: store) { db in
            try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM ATRANSACTION")
        }
        var query = HistoryQuery()
        query.after = last
        return try connection(timeline, ordinal: ordinal, store: store) { db in
            var found: [HistoryTransaction] = []
            try history.transactions(query, db) { found.append($0) }
            return found
        }
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

    /// A row's identity: keys are unique within a table, not across tables.
    struct RowKey: Hashable {
        let table: String
        let key: Int64
    }

    /// One row as a leaf holds it: enough to tell an insert, update or delete.
    struct RowVersion {
        let id: RowKey
        let entity: Int64
        let version: Int64
        /// The record's bytes on the leaf (an update that leaves `Z_OPT` alone still changes them).
        let record: [UInt8]
        var key: Int64 { id.key }
    }

    struct Candidate {
        let after: RowVersion?
        let before: RowVersion?
    }

    /// Rows of a Core Data entity table on a leaf: a NULL first column (`Z_PK`, the rowid),
    /// then an integer `Z_ENT` the model knows and an integer `Z_OPT`.
    static func rows(_ page: [UInt8], page number: UInt32, usable: Int, entities: [Int: EntityMapping], _ body: (RowVersion) -> Void) {
        page.withUnsafeBytes { bytes in
            guard let leaf = BTreePage(bytes, pageNumber: number, usableSize: usable), leaf.kind == .tableLeaf else { return }
            for cell in leaf.tableCells {
                guard RecordFormat.isNull(bytes, record: cell.local, column: 0),
                      let entity = RecordFormat.integer(bytes, record: cell.local, column: 1), let mapping = entities[Int(entity)],
                      let version = RecordFormat.integer(bytes, record: cell.local, column: 2) else { continue }
                body(RowVersion(id: RowKey(table: mapping.table, key: cell.rowid), entity: entity, version: version, record: Array(bytes[cell.local])))
            }
        }
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
                RecordFormat.integer(bytes, record: record, column: 1).map { ($0, RecordFormat.integer(bytes, record: record, column: 2) ?? 0) }
            }
        }
    }

    /// Pages read, by page and the frame they came from (0: the main file): interior pages
    /// change rarely, so one copy serves every generation that reads it. Bounded: cleared
    /// when full.
    struct PageCache {
        static let capacity = 4096
        private var pages: [Int64: [UInt8]] = [:]

        mutating func page(_ number: UInt32, _ side: Side) -> [UInt8]? {
            let frame = side.image.frames?.frame(holding: number, upTo: side.image.lastFrame) ?? 0
            let key = Int64(number) << 32 | Int64(frame)
            if let found = pages[key] { return found }
            guard let bytes = side.image.page(number, main: side.main, wal: side.wal) else { return nil }
            if pages.count >= Self.capacity { pages.removeAll(keepingCapacity: true) }
            pages[key] = bytes
            return bytes
        }
    }
}

import Foundation

/// What one commit of the `-wal` inserted, updated and deleted, per entity, found from the
/// pages it wrote with the format reader alone (no SQLite connection), so that commits can be
/// counted on several threads at once (`CommitCountWorkers`).
///
/// A row lives on one leaf of its table, so an insert, update or delete rewrites that leaf,
/// and a row that moves between leaves rewrites both: the rows on the pages a commit wrote,
/// before and after, hold every row it changed. Which table a leaf belongs to is told by its
/// rows (`Z_PK` as the rowid, a NULL first column, then `Z_ENT` and `Z_OPT`, as every Core
/// Data entity table lays them out). Pages alone can mislead (a freed leaf keeps its old rows;
/// a page reused from the freelist held another table's), so each candidate is looked up by
/// key in both generations before it is counted: the counts are what `diff` between the two
/// tokens finds, at the cost of the pages written rather than of the tables.
struct CommitCounter: Sendable {
    /// An entity's table: the entity (its name is what the counts are kept under) and its b-tree's root.
    struct Table: Sendable {
        let entity: EntityMapping
        let root: UInt32
    }

    let timeline: StoreTimeline
    let log: WALLog
    /// Per `Z_ENT`.
    let tables: [Int: Table]
    let usable: Int
    let main: Int32
    let wal: Int32

    /// A reader of pages for one thread.
    func pages() -> GenerationPages {
        GenerationPages(pageSize: timeline.header.pageSize, frameCount: log.frames.count, main: main, wal: wal)
    }

    /// What one commit did: its counts per entity name, and the rows it deleted.
    struct Counted: Sendable {
        var counts: [String: CommitChanges.Counts] = [:]
        /// Each row the commit deleted: its `Z_ENT` and `Z_PK`.
        var deleted: [(entity: Int, key: Int64)] = []
    }

    /// What commit `ordinal` (its frames `frames`) did, or nil when a page could not be read
    /// or the `-wal` was restarted underneath: not known.
    func count(ordinal: Int, frames: ClosedRange<Int>, pages: GenerationPages) -> Counted? {
        let previous = timeline.image(ordinal: ordinal - 1), current = timeline.image(ordinal: ordinal)
        pages.cover(frames)
        pages.failed = false
        var written = Set<UInt32>()
        for number in frames where number >= 1 && number <= log.frames.count { written.insert(log.frames[number - 1].page) }
        var candidates: [RowKey: Candidate] = [:]
        for page in written {
            let before = pages.pageCopy(page, in: previous), after = pages.page(page, in: current)
            LeafDiff.rows(before, after, page: page, usable: usable, known: { tables[Int($0)] != nil }) { row in
                guard let root = tables[Int(row.entity)]?.root else { return }
                let key = RowKey(root: root, key: row.rowid)
                // A row that moved between pages is seen on both: once is enough.
                candidates[key] = Candidate(entity: row.entity, bytesChanged: row.bytesChanged || candidates[key]?.bytesChanged == true,
                                            before: row.before ?? candidates[key]?.before, after: row.after ?? candidates[key]?.after)
            }
        }
        var counted = Counted()
        for (key, candidate) in candidates {
            guard let table = tables[Int(candidate.entity)] else { continue }
            // The row as each generation's own b-tree holds it: pages alone can mislead.
            let was = lookup(key, in: previous, pages: pages)
            let now = lookup(key, in: current, pages: pages)
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
            counted.counts[own.name, default: .init()][keyPath: kind] += 1
            if kind == \.deleted, let was { counted.deleted.append((Int(was.entity), key.key)) }
        }
        return pages.failed ? nil : counted
    }

    /// `Z_ENT` and `Z_OPT` of row `key` as the generation's own b-tree holds it, or nil.
    private func lookup(_ key: RowKey, in image: GenerationImage, pages: GenerationPages) -> (entity: Int64, version: Int64)? {
        TableBTree.find(key.key, root: key.root, usableSize: usable, read: { pages.page($0, in: image) }) { page, record in
            RecordFormat.entityRow(page, record: record)
        } ?? nil
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
}

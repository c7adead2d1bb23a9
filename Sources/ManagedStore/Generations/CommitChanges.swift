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
        guard let log = timeline.log, let walHeader = log.header else {
            for entry in timeline.entries { try body(entry, nil) }
            return
        }
        let usable = timeline.header.usableSize
        let entitiesByID = Dictionary(store.mapping.entities.compactMap { e in e.entityID.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
        let history = try? PersistentHistory(store: store)
        let wal = open(timeline.mainPath + "-wal", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        defer { if wal >= 0 { close(wal) } }
        guard wal >= 0, let main = HeldDescriptors.kept(timeline.mainPath) else {
            for entry in timeline.entries { try body(entry, nil) }
            return
        }
        var newest: [UInt32: Int] = [:]   // page → newest frame so far
        var previous = try Side(timeline, ordinal: 0, store: store)
        var before = [UInt8](repeating: 0, count: walHeader.pageSize)
        var after = [UInt8](repeating: 0, count: walHeader.pageSize)
        for entry in timeline.entries {
            guard entry.kind == .commit, let frames = entry.frames else { try body(entry, nil); continue }
            try Cancellation.check()
            // A commit a checkpoint has copied into the main file: the main file no longer
            // holds the pages as they were before it, so what it changed cannot be told (nil).
            // Its frames are still remembered, for the commits after it.
            if frames.lowerBound <= timeline.backfilledFrames {
                for number in frames { newest[log.frames[number - 1].page] = number }
                previous = try Side(timeline, ordinal: Int(entry.token.dropFirst()) ?? 0, store: store)
                try body(entry, nil)
                continue
            }
            // The newest frame of each page within the commit, and the one before it.
            var written: [UInt32: Int] = [:]
            for number in frames { written[log.frames[number - 1].page] = number }
            var oldRows: [RowKey: RowVersion] = [:], newRows: [RowKey: RowVersion] = [:]
            var candidates: [Candidate] = []
            for (page, frame) in written {
                let hadBefore = newest[page].map { readFrame(wal, log, $0, into: &before) } ?? readMain(main, page, timeline, into: &before)
                guard readFrame(wal, log, frame, into: &after) else { continue }
                if hadBefore { rows(before, page: page, usable: usable, entities: entitiesByID) { oldRows[$0.id] = $0 } }
                rows(after, page: page, usable: usable, entities: entitiesByID) { newRows[$0.id] = $0 }
            }
            for (key, row) in newRows {
                let old = oldRows[key]
                if old == nil || old?.version != row.version || old?.record != row.record { candidates.append(Candidate(after: row, before: old)) }
            }
            for (key, row) in oldRows where newRows[key] == nil { candidates.append(Candidate(after: nil, before: row)) }
            for (page, frame) in written { newest[page] = frame }
            let current = try Side(timeline, ordinal: Int(entry.token.dropFirst()) ?? 0, store: store)
            var changes = CommitChanges()
            for candidate in candidates {
                guard let probe = candidate.after ?? candidate.before, let entity = entitiesByID[Int(probe.entity)] else { continue }
                let was = try previous.lookup(entity, probe.key), now = try current.lookup(entity, probe.key)
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
                var query = HistoryQuery()
                // The transactions after the newest one the generation before holds.
                query.after = try previous.queue.read { db in try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM ATRANSACTION") }
                try current.queue.read { db in
                    try history.transactions(query, db) { changes.transactions.append($0) }
                }
            }
            try body(entry, changes)
            previous = current
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

    private static func readFrame(_ wal: Int32, _ log: WALLog, _ number: Int, into page: inout [UInt8]) -> Bool {
        let size = page.count
        return page.withUnsafeMutableBytes { pread(wal, $0.baseAddress, size, off_t(log.frameOffset(number) + Int64(WALFrameHeader.size))) } == size
    }

    private static func readMain(_ main: Int32, _ page: UInt32, _ timeline: StoreTimeline, into bytes: inout [UInt8]) -> Bool {
        let size = bytes.count
        guard Int(page) <= (timeline.entries.first?.databasePages ?? 0) else { return false }
        return bytes.withUnsafeMutableBytes { pread(main, $0.baseAddress, size, off_t(Int64(page - 1) * Int64(size))) } == size
    }

    /// One generation opened for looking rows up by key; its connection closes with it.
    final class Side {
        let queue: DatabaseQueue
        let file: StoreFile

        init(_ timeline: StoreTimeline, ordinal: Int, store: PersistentStore) throws {
            file = try store.file.reading(generation: "w\(ordinal)", in: timeline)
            queue = try StoreConnection.open(file, readonly: true)
        }

        deinit { try? StoreConnection.close(queue) }

        func lookup(_ entity: EntityMapping, _ key: Int64) throws -> (entity: Int64, version: Int64)? {
            let sql = "SELECT \(entity.entityColumn.map(SQL.identifier) ?? "0"), \(entity.versionColumn.map(SQL.identifier) ?? "0") FROM "
                + "\(SQL.identifier(entity.table)) WHERE \(SQL.identifier(entity.primaryKeyColumn)) = ?"
            do {
                return try queue.read { db in
                    try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [key]).map { ($0[0] ?? 0, $0[1] ?? 0) }
                }
            } catch {
                throw StoreConnection.translate(error, file: file)
            }
        }
    }
}

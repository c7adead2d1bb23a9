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
    /// Each row the commit deleted: its `Z_ENT` and `Z_PK` (what `recover` reads back from the
    /// generation before it).
    public var deleted: [(entity: Int, key: Int64)] = []
    /// The history transactions the commit wrote (usually one), when the store keeps history.
    public var transactions: [HistoryTransaction] = []
}

/// Reads each commit's changes: the rows it inserted, updated and deleted from the pages it
/// wrote (`CommitCounter`, on the machine's cores), and the history transactions it carries,
/// read by SQLite at the generations either side.
public enum CommitChangeReader {
    /// Hands each entry of the timeline, in order, to `body` with what it changed (nil for an
    /// entry that is no commit, or a commit whose changes cannot be known). Without
    /// `transactions`, the history transactions are not read (they take a connection a commit).
    public static func read(_ store: PersistentStore, timeline: StoreTimeline, transactions readTransactions: Bool = true,
                            _ body: (StoreTimeline.Entry, CommitChanges?) throws -> Void) throws {
        let wal = open(timeline.mainPath + "-wal", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        defer { if wal >= 0 { close(wal) } }
        guard let log = timeline.log, log.header != nil, wal >= 0, let main = HeldDescriptors.kept(timeline.mainPath) else {
            for entry in timeline.entries { try body(entry, nil) }
            return
        }
        let roots = try store.read(TableRoots.read)
        var tables: [Int: CommitCounter.Table] = [:]
        for entity in store.mapping.entities {
            if let id = entity.entityID, let root = roots[entity.table.uppercased()], tables[id] == nil { tables[id] = .init(entity: entity, root: root) }
        }
        let counter = CommitCounter(timeline: timeline, log: log, tables: tables, usable: timeline.header.usableSize, main: main, wal: wal)
        // A commit a checkpoint has copied into the main file is not counted: the main file no
        // longer holds the pages as they were before it, so what it changed cannot be told (nil).
        var jobs: [CommitCountWorkers.Job] = []
        for entry in timeline.entries {
            if entry.kind == .commit, let frames = entry.frames, let ordinal = Int(entry.token.dropFirst()), frames.lowerBound > timeline.backfilledFrames {
                jobs.append(.init(ordinal: ordinal, frames: frames))
            }
        }
        let workers = CommitCountWorkers(counter, jobs: jobs)
        defer { workers.finish() }
        let history = readTransactions ? try? PersistentHistory(store: store) : nil
        // The newest history transaction the generation before the commit holds, once known
        // (the previous commit's read tells it): nil, not known yet.
        var newestTransaction: Int64?? = nil
        var job = 0
        for entry in timeline.entries {
            guard job < jobs.count, entry.kind == .commit, entry.frames == jobs[job].frames else {
                newestTransaction = nil
                try body(entry, nil)
                continue
            }
            try Cancellation.check()
            let ordinal = jobs[job].ordinal
            let counts = workers.counts(job)
            job += 1
            // A frame that could not be read, or a WAL restarted underneath: not known.
            guard let counts else {
                newestTransaction = nil
                try body(entry, nil)
                continue
            }
            var changes = CommitChanges()
            changes.entities = counts.counts
            changes.deleted = counts.deleted
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
}

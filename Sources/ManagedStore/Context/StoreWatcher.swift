import Foundation
import GRDB

/// One object that changed while a store was watched.
public struct WatchEvent {
    public var kind: GenerationChange.Kind
    public var objectID: ObjectID
    /// The keys that changed with their old and new values: every key of an inserted
    /// (old nil) or deleted (new nil) object, the differing keys of an updated one.
    public var changes: [(key: String, old: ObjectValue?, new: ObjectValue?)]
    /// The history transaction that made the change, when the store keeps history and the
    /// writer recorded it (a sqlite3 shell does not).
    public var transaction: HistoryTransaction?
}

/// `watch`: a generation that advances (DESIGN.md "Store changes"). It holds a snapshot,
/// sleeps until the store's change signal moves (the WAL index header in WAL mode, the
/// file change counter in rollback mode), diffs the snapshot with a new one, reports each
/// changed object of the watched entities, and moves on to the new snapshot.
///
/// In rollback-journal mode a snapshot cannot be held open without blocking every writer,
/// so the watched rows themselves are kept between changes instead.
public final class StoreWatcher {
    public let store: PersistentStore
    private let entities: [EntityMapping]
    private let predicate: Predicate?
    private let predicateText: String
    /// How long to sleep between looks at the change signal.
    public var interval: TimeInterval = 0.05

    public init(store: PersistentStore, entity: EntityMapping?, predicate: Predicate?, predicateText: String) {
        self.store = store
        let all = store.mapping.entities.filter { !$0.isAbstract && $0.entityID != nil && store.schema.table($0.table) != nil }
        if let entity {
            let ids = Set(entity.entityIDs)
            entities = all.filter { $0.entityID.map(ids.contains) ?? false }
        } else {
            entities = all
        }
        self.predicate = predicate
        self.predicateText = predicateText
    }

    /// Reports changes until `body` returns false, the deadline passes, or Ctrl-C.
    public func run(until deadline: Date?, _ body: (WatchEvent) throws -> Bool) throws {
        let history = try? PersistentHistory(store: store)
        var signal = ChangeSignal.read(store.file)
        var state = try Snapshot.take(self)
        var lastToken = try history.flatMap { h in try state.read(self) { try h.summary($0).lastToken } } ?? 0
        while true {
            try Cancellation.check()
            if let deadline, Date() >= deadline { return }
            let now = ChangeSignal.read(store.file)
            guard now != signal else {
                let pause = deadline.map { min(interval, max(0, $0.timeIntervalSinceNow)) } ?? interval
                usleep(useconds_t(pause * 1_000_000))
                continue
            }
            signal = now
            let next = try Snapshot.take(self)
            var events = try changes(from: state, to: next)
            if let history, !events.isEmpty {
                var writers: [ObjectID: (HistoryTransaction, Int)] = [:]
                var order = 0
                var query = HistoryQuery()
                query.after = lastToken
                try next.read(self) { db in
                    try history.changes(query, db) { transaction, change in
                        guard let name = change.entityName else { return }
                        let id = ObjectID(storeUUID: store.uuid, entityName: name, primaryKey: change.primaryKey)
                        writers[id] = (transaction, order)
                        order += 1
                        lastToken = max(lastToken, transaction.token)
                    }
                }
                for i in events.indices { events[i].transaction = writers[events[i].objectID]?.0 }
                // Commit order, where history tells it.
                events = events.enumerated().sorted { a, b in
                    (writers[a.element.objectID]?.1 ?? Int.max, a.offset) < (writers[b.element.objectID]?.1 ?? Int.max, b.offset)
                }.map(\.element)
            }
            state.release()
            state = next
            for event in events { guard try body(event) else { return } }
        }
    }

    /// What was there before a change: a held generation, or the watched rows themselves.
    enum Snapshot {
        case generation(Generation)
        case rows([ObjectID: RowSnapshot])

        static func take(_ watcher: StoreWatcher) throws -> Snapshot {
            if watcher.store.file.journalMode == .wal {
                let generation = Generation(token: "watch", file: watcher.store.file, log: watcher.store.log)
                try generation.read { _ in }
                return .generation(generation)
            }
            return .rows(try watcher.store.read { db in
                var rows: [ObjectID: RowSnapshot] = [:]
                for entity in watcher.entities { rows.merge(try watcher.rows(entity, keys: nil, db)) { a, _ in a } }
                return rows
            })
        }

        func read<T>(_ watcher: StoreWatcher, _ body: (Database) throws -> T) throws -> T {
            if case .generation(let generation) = self { return try generation.read(body) }
            return try watcher.store.read(body)
        }

        func release() {
            if case .generation(let generation) = self { generation.release() }
        }
    }

    private func changes(from old: Snapshot, to new: Snapshot) throws -> [WatchEvent] {
        switch (old, new) {
        case (.generation(let a), .generation(let b)):
            var changed: [String: [Int64]] = [:]
            try GenerationDiff.changes(store, a, b, entities: entities) { change in
                changed[change.objectID.entityName, default: []].append(change.objectID.primaryKey)
            }
            var events: [WatchEvent] = []
            for entity in entities {
                guard let keys = changed[entity.name] else { continue }
                for start in stride(from: 0, to: keys.count, by: 500) {
                    let chunk = Array(keys[start..<min(start + 500, keys.count)])
                    let before = try a.read { try rows(entity, keys: chunk, $0) }
                    let after = try b.read { try rows(entity, keys: chunk, $0) }
                    events += chunk.compactMap { key in
                        let id = ObjectID(storeUUID: store.uuid, entityName: entity.name, primaryKey: key)
                        return StoreWatcher.event(id, before[id], after[id])
                    }
                }
            }
            return events
        case (.rows(let before), .rows(let after)):
            let ids = Set(before.keys).union(after.keys).sorted(by: ObjectID.displayOrder)
            return ids.compactMap { StoreWatcher.event($0, before[$0], after[$0]) }
        default:
            return []
        }
    }

    /// The watched rows of one entity (those the predicate matches), all or by key.
    private func rows(_ entity: EntityMapping, keys: [Int64]?, _ db: Database) throws -> [ObjectID: RowSnapshot] {
        var request = FetchRequest(entityName: entity.name, predicate: predicate, predicateText: predicateText)
        request.primaryKeys = keys
        let plan = try FetchPlan(request, store: store)
        var rows: [ObjectID: RowSnapshot] = [:]
        try plan.forEach(db) { row in
            guard let id = row.objectID else { return }
            rows[id] = StoreRows.snapshot(row, plan: plan)
        }
        return rows
    }

    private static func event(_ id: ObjectID, _ before: RowSnapshot?, _ after: RowSnapshot?) -> WatchEvent? {
        switch (before, after) {
        case (nil, let row?):
            return WatchEvent(kind: .inserted, objectID: id, changes: row.values.sorted { $0.key < $1.key }.map { ($0.key, nil, $0.value) })
        case (let row?, nil):
            return WatchEvent(kind: .deleted, objectID: id, changes: row.values.sorted { $0.key < $1.key }.map { ($0.key, $0.value, nil) })
        case (let old?, let new?):
            guard old.version != new.version || old.values != new.values else { return nil }
            let keys = Set(old.values.keys).union(new.values.keys).filter { old.values[$0] != new.values[$0] }.sorted()
            return WatchEvent(kind: .updated, objectID: id, changes: keys.map { ($0, old.values[$0], new.values[$0]) })
        case (nil, nil):
            return nil
        }
    }
}

/// What moves when a transaction commits: the WAL index header in WAL mode (read from the
/// `-shm`, no lock taken), else the database header's file change counter (offset 24).
/// Both are read through descriptors that stay open: closing a descriptor of a file drops
/// every POSIX lock this process holds on it, the snapshot's included.
enum ChangeSignal {
    static func read(_ file: StoreFile) -> [UInt8] {
        if let index = WALIndex.read(file) { return index.header }
        guard let fd = SharedMemoryFile.descriptor(file.path) else { return [] }
        var bytes = [UInt8](repeating: 0, count: 4)
        guard pread(fd, &bytes, 4, 24) == 4 else { return [] }
        return bytes
    }
}

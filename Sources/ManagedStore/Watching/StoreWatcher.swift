import Foundation
import GRDB

/// `watch`: follows a store while other processes commit, and holds nothing of it between
/// looks. An app's `wal_checkpoint(TRUNCATE)` must never find `watch` in its way, so no read
/// transaction stays open: each look is one short read.
///
/// Between looks it sleeps until the store's change signal moves (the WAL index header in
/// WAL mode, the file change counter in rollback mode). A look then asks only the rows that
/// can have changed: in WAL mode, the rows on the table pages the new frames of the `-wal`
/// wrote (a commit writes every page it changes there), plus the rows a delete took off a
/// page, found between the pages' keys. So a look costs what the commits wrote, not what the
/// tables hold. Where the frames cannot say (rollback mode, or the WAL was restarted after a
/// checkpoint between two looks) every watched row is read again. What was seen is kept as
/// `RowSummary`: per row `Z_OPT`, the predicate's answer, and a hash of each key.
public final class StoreWatcher {
    public let store: PersistentStore
    private let tables: [WatchedTable]
    private let predicate: Predicate?
    private let predicateText: String
    private let walReader: WALFrameReader
    private let usableSize: Int
    /// How long to sleep between looks at the change signal.
    public var interval: TimeInterval = 0.05

    public init(store: PersistentStore, entity: EntityMapping?, predicate: Predicate?, predicateText: String) {
        self.store = store
        let all = store.mapping.entities.filter { !$0.isAbstract && $0.entityID != nil && store.schema.table($0.table) != nil }
        let watched: [EntityMapping]
        if let entity {
            let ids = Set(entity.entityIDs)
            watched = all.filter { $0.entityID.map(ids.contains) ?? false }
        } else {
            watched = all
        }
        var byTable: [String: [EntityMapping]] = [:]
        for e in watched { byTable[e.table, default: []].append(e) }
        tables = byTable.keys.sorted().compactMap { name in
            guard let table = WatchedTable(table: name, entities: byTable[name] ?? [], schema: store.schema) else { return nil }
            table.tableEntityIDs = Set(store.mapping.entities.filter { $0.table == name }.compactMap { $0.entityID.map(Int64.init) })
            return table
        }
        self.predicate = predicate
        self.predicateText = predicateText
        walReader = WALFrameReader(file: store.file)
        usableSize = store.file.pageSize - StoreWatcher.reservedBytes(store.file.path)
    }

    /// Reports changes until `body` returns false, the deadline passes, or Ctrl-C. Throws
    /// `StoreError.replaced` when the file at the store's path is deleted or replaced.
    /// `ready` is called once the first look has read every watched row: a change committed
    /// after it is reported.
    public func run(until deadline: Date?, ready: () -> Void = {}, _ body: (WatchEvent) throws -> Bool) throws {
        let history = try? PersistentHistory(store: store)
        let identity = StoreFile.identity(store.path)
        var signal = ChangeSignal.read(store.file)
        walReader.reset(to: WALIndex.read(store.file))
        var lastToken: Int64 = 0
        try store.read { db in
            try readRoots(db)
            for table in tables { table.summary = try summary(of: table, db) { _, _, _ in } }
            lastToken = try history?.summary(db).lastToken ?? 0
        }
        ready()
        while true {
            try Cancellation.check()
            if let deadline, Date() >= deadline { return }
            try StoreFile.checkSame(store.path, identity)
            let next = ChangeSignal.read(store.file)
            var wait = interval
            if next != signal {
                signal = next
                let started = ProcessInfo.processInfo.systemUptime
                for event in try look(history, &lastToken) { guard try body(event) else { return } }
                // Under a writer that never stops the signal moves during every look, and a
                // writer that checkpoints with TRUNCATE makes each look read every row (watch
                // took 0.71 s of processor time in a 0.86 s run of 3,000 commits): pause four
                // times as long as the look took, so watch keeps to a fifth of a core beside
                // the app, but never more than a quarter second, so a change shows soon.
                // What commits meanwhile merges into the next look.
                wait = min(max(interval, 4 * (ProcessInfo.processInfo.systemUptime - started)), max(interval, 0.25))
            }
            let pause = deadline.map { min(wait, max(0, $0.timeIntervalSinceNow)) } ?? wait
            usleep(useconds_t(pause * 1_000_000))
        }
    }

    /// One look: the rows that can have changed, compared with what was seen, in one read.
    private func look(_ history: PersistentHistory?, _ lastToken: inout Int64) throws -> [WatchEvent] {
        var pages: [UInt32: [UInt8]]?
        if let index = WALIndex.read(store.file) {
            switch walReader.newPages(upTo: index) {
            case .pages(let written): pages = written
            case .unknown: walReader.reset(to: index)
            }
        }
        return try store.read { db in
            var changes: [Change] = []
            for table in tables {
                if let pages {
                    changes += try compare(table, keys: try candidates(table, pages, db), db)
                } else {
                    table.summary = try summary(of: table, db) { key, old, new in
                        if let change = Self.change(table, key, old, new) { changes.append(change) }
                    }
                }
            }
            return try events(changes, history, &lastToken, db)
        }
    }

    // MARK: Which rows

    /// Rows on the table's pages among those written, and rows a delete took off them: the
    /// remembered keys inside a page's key range that it no longer holds, and beyond its
    /// ends the remembered keys up to the nearest that still exists.
    private func candidates(_ table: WatchedTable, _ pages: [UInt32: [UInt8]], _ db: Database) throws -> [Int64] {
        var keys = Set<Int64>()
        var ranges: [ClosedRange<Int64>] = []
        for (number, bytes) in pages {
            guard let leaf = bytes.withUnsafeBytes({
                TableLeafPage($0, pageNumber: number, usableSize: usableSize, entityColumn: table.entityColumnIndex)
            }) else { continue }
            if leaf.keys.isEmpty {
                // The root left empty: the table has no rows now.
                if number == table.rootPage { keys.formUnion(table.summary.allKeys()) }
                continue
            }
            guard let entity = leaf.entity, table.tableEntityIDs.contains(entity),
                  let low = leaf.keys.first, let high = leaf.keys.last, low <= high else { continue }
            keys.formUnion(leaf.keys)
            ranges.append(low...high)
            keys.formUnion(table.summary.keys(in: low...high))
        }
        for range in ranges {
            for below in [true, false] {
                var from = below ? range.lowerBound : range.upperBound
                walk: while true {
                    let batch = below ? table.summary.keys(below: from, limit: 32) : table.summary.keys(above: from, limit: 32)
                    guard let last = batch.last else { break }
                    let existing = try table.existing(batch, db)
                    for key in batch {
                        if existing.contains(key) { break walk }
                        keys.insert(key)
                    }
                    from = last
                }
            }
        }
        return keys.sorted()
    }

    // MARK: Comparing

    struct Change {
        let table: WatchedTable
        let key: Int64
        /// The row's `Z_ENT` as last seen: a deleted row is gone from the summary by the
        /// time events are made.
        let entity: Int64
        let kind: WatchEvent.Kind
        /// For an update: the changed keys (names).
        var keys: [String]
    }

    /// The rows of these keys now, against what was seen; the summary takes the new state.
    private func compare(_ table: WatchedTable, keys: [Int64], _ db: Database) throws -> [Change] {
        var changes: [Change] = []
        for start in stride(from: 0, to: keys.count, by: 500) {
            let chunk = Array(keys[start..<min(start + 500, keys.count)])
            let matching = try matchingKeys(table, chunk, db)
            var seen = Set<Int64>()
            try table.forEachRow(chunk, db) { key, mark, hashes in
                seen.insert(key)
                var mark = mark
                mark.matches = matching?.contains(key) ?? true
                let old = table.summary.index(of: key).map { (table.summary.marks[$0], table.summary.hashes(at: $0)) }
                if let change = Self.change(table, key, old, (mark, hashes)) { changes.append(change) }
                table.summary.set(key, mark, hashes)
            }
            for key in chunk where !seen.contains(key) {
                guard let index = table.summary.index(of: key) else { continue }
                let mark = table.summary.marks[index]
                if mark.matches { changes.append(Change(table: table, key: key, entity: mark.entity, kind: .deleted, keys: [])) }
                table.summary.remove(key)
            }
        }
        return changes
    }

    /// Every row read again into a new summary, each compared with the old one on the way.
    private func summary(of table: WatchedTable, _ db: Database,
                         _ changed: (Int64, (RowSummary.Mark, [UInt32])?, (RowSummary.Mark, [UInt32])?) -> Void) throws -> RowSummary {
        let matching = try matchingKeys(table, nil, db)
        let next = RowSummary(stride: table.keys.count)
        let old = table.summary
        try table.forEachRow(nil, db) { key, mark, hashes in
            var mark = mark
            mark.matches = matching?.contains(key) ?? true
            next.set(key, mark, hashes)
            changed(key, old.index(of: key).map { (old.marks[$0], old.hashes(at: $0)) }, (mark, hashes))
        }
        for key in old.allKeys() where next.index(of: key) == nil {
            guard let index = old.index(of: key) else { continue }
            changed(key, (old.marks[index], old.hashes(at: index)), nil)
        }
        return next
    }

    /// What happened to a row, from what was seen and what is there now; nil for nothing a
    /// watcher reports (a row that neither matched nor matches).
    private static func change(_ key: Int64, _ old: (RowSummary.Mark, [UInt32])?, _ new: (RowSummary.Mark, [UInt32])?)
        -> (WatchEvent.Kind, [Int])? {
        switch (old, new) {
        case (nil, let new?): return new.0.matches ? (.inserted, []) : nil
        case (let old?, nil): return old.0.matches ? (.deleted, []) : nil
        case (let old?, let new?):
            switch (old.0.matches, new.0.matches) {
            case (false, false): return nil
            case (false, true): return (.entered, [])
            case (true, false): return (.left, [])
            case (true, true):
                let differing = old.1.indices.filter { old.1[$0] != new.1[$0] }
                guard !differing.isEmpty || old.0.version != new.0.version || old.0.entity != new.0.entity else { return nil }
                return (.updated, differing)
            }
        case (nil, nil): return nil
        }
    }

    private static func change(_ table: WatchedTable, _ key: Int64, _ old: (RowSummary.Mark, [UInt32])?,
                               _ new: (RowSummary.Mark, [UInt32])?) -> Change? {
        guard let (kind, differing) = change(key, old, new), let mark = new?.0 ?? old?.0 else { return nil }
        return Change(table: table, key: key, entity: mark.entity, kind: kind, keys: differing.map { table.keys[$0] })
    }

    /// The keys the predicate matches (of these, or of all rows); nil without a predicate.
    private func matchingKeys(_ table: WatchedTable, _ keys: [Int64]?, _ db: Database) throws -> Set<Int64>? {
        guard let predicate else { return nil }
        var matching = Set<Int64>()
        for entity in table.entities {
            var request = FetchRequest(entityName: entity.name, predicate: predicate, predicateText: predicateText)
            request.primaryKeys = keys
            request.resultType = .ids
            try FetchPlan(request, store: store).forEach(db) { row in
                if let id = row.objectID { matching.insert(id.primaryKey) }
            }
        }
        return matching
    }

    // MARK: Events

    /// Changes made into events: the values now, the transaction that made each (where the
    /// store keeps history), in commit order.
    private func events(_ changes: [Change], _ history: PersistentHistory?, _ lastToken: inout Int64, _ db: Database) throws -> [WatchEvent] {
        var writers: [ObjectID: (transaction: HistoryTransaction, order: Int, updated: [String])] = [:]
        if let history {
            if !changes.isEmpty {
                var query = HistoryQuery()
                query.after = lastToken
                var order = 0
                try history.changes(query, db) { transaction, change in
                    guard let name = change.entityName else { return }
                    let id = ObjectID(storeUUID: store.uuid, entityName: name, primaryKey: change.primaryKey)
                    writers[id] = (transaction, order, (writers[id]?.updated ?? []) + (change.updatedProperties ?? []))
                    order += 1
                }
            }
            lastToken = try history.summary(db).lastToken ?? lastToken
        }
        var events: [WatchEvent] = []
        var byEntity: [String: [Int]] = [:]
        for change in changes {
            guard let entity = change.table.entities.first(where: { Int64($0.entityID ?? -1) == change.entity })
                    ?? change.table.entities.first else { continue }
            let id = ObjectID(storeUUID: store.uuid, entityName: entity.name, primaryKey: change.key)
            var keys = change.keys.filter { entity.attribute($0) != nil || entity.relationship($0) != nil }
            if change.kind == .updated, let named = writers[id]?.updated {
                // A to-many change Core Data makes bumps Z_OPT alone; history names it.
                keys += named.filter { name in !keys.contains(name) && entity.relationship(name)?.relationship.isToMany == true }
            }
            events.append(WatchEvent(kind: change.kind, objectID: id, values: keys.map { ($0, ObjectValue.null) }, transaction: writers[id]?.transaction))
            if change.kind != .deleted && change.kind != .left { byEntity[entity.name, default: []].append(events.count - 1) }
        }
        for (name, indexes) in byEntity {
            guard let entity = store.mapping.entity(named: name) else { continue }
            let values = try currentValues(entity, indexes.map { events[$0].objectID.primaryKey }, db)
            for i in indexes {
                let row = values[events[i].objectID.primaryKey] ?? [:]
                if events[i].kind == .updated {
                    events[i].values = events[i].values.map { key, _ in (key, row[key] ?? .null) }
                } else {
                    events[i].values = row.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                }
            }
        }
        return events.enumerated().sorted { a, b in
            (writers[a.element.objectID]?.order ?? Int.max, a.offset) < (writers[b.element.objectID]?.order ?? Int.max, b.offset)
        }.map(\.element)
    }

    /// The values of these objects now, to-many relationships as their destinations.
    private func currentValues(_ entity: EntityMapping, _ keys: [Int64], _ db: Database) throws -> [Int64: [String: ObjectValue]] {
        var result: [Int64: [String: ObjectValue]] = [:]
        for start in stride(from: 0, to: keys.count, by: 500) {
            var request = FetchRequest(entityName: entity.name)
            request.primaryKeys = Array(keys[start..<min(start + 500, keys.count)])
            let plan = try FetchPlan(request, store: store)
            try plan.forEach(db) { row in
                guard let id = row.objectID else { return }
                result[id.primaryKey] = StoreRows.snapshot(row, plan: plan).values
            }
        }
        for r in entity.relationships where r.relationship.isToMany && !r.relationship.isTransient {
            for key in keys where result[key] != nil {
                let id = ObjectID(storeUUID: store.uuid, entityName: entity.name, primaryKey: key)
                result[key]?[r.relationship.name] = .toMany(try StoreRows.destinations(of: id, r, store: store, db: db))
            }
        }
        return result
    }

    // MARK: The file

    private func readRoots(_ db: Database) throws {
        for table in tables {
            table.rootPage = try Int64.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?",
                                                arguments: [table.name]).flatMap { UInt32(exactly: $0) }
        }
    }

    /// Bytes each page reserves at its end (database header offset 20), usually 0.
    private static func reservedBytes(_ path: String) -> Int {
        guard let fd = SharedMemoryFile.descriptor(path) else { return 0 }
        var byte: UInt8 = 0
        return pread(fd, &byte, 1, 20) == 1 ? Int(byte) : 0
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

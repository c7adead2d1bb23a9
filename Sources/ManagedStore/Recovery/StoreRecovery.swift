import Foundation
import GRDB

/// The objects no live row holds, read back from the store's files, phase by phase (after
/// SQLite's `ext/recover/sqlite3recover.c`: each phase a documented step, handing the next
/// what it found):
///
/// 1. `DeletedInPastGenerations`: the rows each commit of the `-wal` deleted, found from the
///    pages it wrote (`CommitChangeReader`), and the last commit that deleted each;
/// 2. `LiveRows`: those the store's newest state still holds are dropped (a key deleted and
///    written again is no deleted object);
/// 3. `LastVersions`: each is read at the generation before the commit that deleted it, by
///    SQLite through the generation's image, and named as `export` names an object (its entity,
///    object ID, every attribute and relationship): exact;
/// 4. `CarvedRecords`: records in the main file's free space (freeblocks, unallocated space,
///    pages on the freelist or in no b-tree), whole or rebuilt, none equal to a live row;
/// 5. `MissingKeys`: per table, the keys below `Z_PRIMARYKEY.Z_MAX` that no row holds, with how
///    many of them the phases before read back: the evidence when the bytes are gone.
///
/// Read-only: every phase reads through the store's reader or a generation's image.
public struct StoreRecovery {
    public let store: PersistentStore
    /// The concrete entities asked for (with their sub-entities), or every one.
    public let entities: [EntityMapping]
    /// The tables asked for by name, in a plain SQLite file (empty: every one).
    private let tables: Set<String>

    public init(_ store: PersistentStore, entities names: [String] = []) throws {
        self.store = store
        let all = store.mapping.entities.filter { !$0.isAbstract && $0.entityID != nil }
        guard !names.isEmpty else {
            entities = all
            tables = []
            return
        }
        guard store.isCoreDataStore else {
            // A plain SQLite file: the names are its tables'.
            entities = []
            tables = Set(names.map { $0.uppercased() })
            return
        }
        tables = []
        var wanted: Set<String> = []
        for name in names {
            guard let entity = store.mapping.entity(named: name) else { throw StoreError.unknownEntity(name: name, suggestion: nil) }
            wanted.insert(entity.name)
        }
        // Sub-entities of a named entity too, as a fetch of it would find them.
        var grew = true
        while grew {
            grew = false
            for entity in store.mapping.entities where !wanted.contains(entity.name) {
                if let parent = entity.superentityName, wanted.contains(parent) { wanted.insert(entity.name); grew = true }
            }
        }
        entities = all.filter { wanted.contains($0.name) }
    }

    /// What the phases find, handed to the caller's thread.
    private enum Found: Sendable {
        case object(RecoveredObject)
        case missing(MissingKeys)
    }

    /// Hands each recovered object to `object`, oldest deletion first, then each table's
    /// missing keys to `missing`, on the calling thread; the phases run on a thread of their
    /// own meanwhile (`Handoff`).
    public func run(object: (RecoveredObject) throws -> Void, missing: (MissingKeys) throws -> Void) throws {
        try Handoff<Found>.run({ yield in try self.phases(yield) }, consume: { found in
            switch found {
            case .object(let record): try object(record)
            case .missing(let keys): try missing(keys)
            }
        })
    }

    private func phases(_ yield: (Found) throws -> Void) throws {
        var recovered: [String: Set<Int64>] = [:]
        func found(_ record: RecoveredObject) throws {
            if let key = record.objectID?.primaryKey { recovered[record.table.uppercased(), default: []].insert(key) }
            try yield(.object(record))
        }
        var deleted = try DeletedInPastGenerations(store, entities: entities)
        try LiveRows.drop(from: &deleted, store: store)
        try LastVersions.read(deleted, store: store, found)
        let coreData = store.isCoreDataStore
        let entityTables = Set(entities.map { $0.table.uppercased() })
        let tables = self.tables
        let live = LiveRecords(store: store)
        try CarvedRecords(store: store, live: live, wanted: { shape in
            // A Core Data store's entity tables (its own bookkeeping tables are not objects);
            // a plain file's tables, or those named.
            coreData ? shape.entityNumbers != nil && entityTables.contains(shape.name.uppercased())
                : tables.isEmpty || tables.contains(shape.name.uppercased())
        }).run(found)
        try MissingKeys.find(store, entities: entities, recovered: recovered, live: live) { try yield(.missing($0)) }
    }
}

/// Phase 1: per row, the last commit of the `-wal` that deleted it.
struct DeletedInPastGenerations {
    struct Row: Hashable {
        /// The row's own entity (`Z_ENT`).
        let entity: Int
        let key: Int64
    }

    /// Each deleted row, with the ordinal of the last commit that deleted it.
    var rows: [Row: Int] = [:]

    init(_ store: PersistentStore, entities: [EntityMapping]) throws {
        let wanted = Set(entities.compactMap(\.entityID))
        let timeline = try StoreTimeline.read(path: store.path)
        // Read at a past generation, the store's newest state is that one: later commits are not its past.
        let last = store.options.generation.flatMap { token in token.hasPrefix("w") ? Int(token.dropFirst()) : nil } ?? Int.max
        try CommitChangeReader.read(store, timeline: timeline, transactions: false) { entry, changes in
            guard let changes, let ordinal = Int(entry.token.dropFirst()), ordinal <= last else { return }
            for (entity, key) in changes.deleted where wanted.contains(entity) { rows[Row(entity: entity, key: key)] = ordinal }
        }
    }
}

/// Phase 2: rows the store's newest state holds are no deleted objects.
enum LiveRows {
    static func drop(from deleted: inout DeletedInPastGenerations, store: PersistentStore) throws {
        guard !deleted.rows.isEmpty else { return }
        // Per table: keys are unique in a table, whatever entity of it held them.
        var byTable: [String: [Int64]] = [:]
        for row in deleted.rows.keys {
            guard let entity = store.mapping.entity(withID: row.entity) else { continue }
            byTable[entity.table, default: []].append(row.key)
        }
        var live: [String: Set<Int64>] = [:]
        do {
            try store.reader.read { db in
                for (table, keys) in byTable {
                    for chunk in stride(from: 0, to: keys.count, by: 10_000) {
                        let list = keys[chunk..<min(keys.count, chunk + 10_000)].map(String.init).joined(separator: ",")
                        let found = try Int64.fetchAll(db, sql: "SELECT Z_PK FROM \(SQL.identifier(table)) WHERE Z_PK IN (\(list))")
                        live[table, default: []].formUnion(found)
                    }
                }
            }
        } catch {
            throw StoreConnection.translate(error, file: store.file)
        }
        deleted.rows = deleted.rows.filter { row, _ in
            guard let entity = store.mapping.entity(withID: row.entity) else { return false }
            return live[entity.table]?.contains(row.key) != true
        }
    }
}

/// Phase 3: each deleted row as the generation before its deletion holds it.
enum LastVersions {
    static func read(_ deleted: DeletedInPastGenerations, store: PersistentStore, _ body: (RecoveredObject) throws -> Void) throws {
        var byCommit: [Int: [String: [Int64]]] = [:]
        for (row, ordinal) in deleted.rows {
            guard let entity = store.mapping.entity(withID: row.entity) else { continue }
            byCommit[ordinal, default: [:]][entity.name, default: []].append(row.key)
        }
        for ordinal in byCommit.keys.sorted() {
            try Cancellation.check()
            guard let keys = byCommit[ordinal] else { continue }
            var options = store.options
            options.generation = "w\(ordinal - 1)"
            options.log = nil
            let past = try PersistentStore(path: store.path, options: options)
            defer { past.close() }
            let source = RecoveredObject.Source.earlierGeneration(generation: "w\(ordinal - 1)", deletedBy: "w\(ordinal)")
            let confidence = RecoveredObject.Confidence(level: .exact, reason: "the row as SQLite reads generation w\(ordinal - 1), the save before the one that deleted it")
            try StoreExport(past, keys: keys).run(entity: { _ in }) { object in
                let table = store.mapping.entity(named: object.objectID.entityName)?.table ?? ""
                try body(RecoveredObject(entity: object.objectID.entityName, table: table, objectID: object.objectID, rowid: object.objectID.primaryKey,
                                         values: object.values, source: source, confidence: confidence))
            }
        }
    }
}

extension MissingKeys {
    /// Phase 4: per table of the entities asked for, the keys below its root entity's `Z_MAX`
    /// that no row holds.
    static func find(_ store: PersistentStore, entities: [EntityMapping], recovered recoveredKeys: [String: Set<Int64>],
                     live: LiveRecords?, _ body: (MissingKeys) throws -> Void) throws {
        guard store.schema.table("Z_PRIMARYKEY") != nil else { return }
        var roots: [EntityMapping] = []
        for entity in entities {
            let root = store.mapping.rootEntity(of: entity)
            if !roots.contains(where: { $0.name == root.name }) { roots.append(root) }
        }
        do {
            try store.reader.read { db in
                for root in roots {
                    // A counter that is no number says nothing of the keys: no evidence from it.
                    guard store.schema.table(root.table) != nil, let issued = try? StoreWriter.keyCounter(of: root, db), issued > 0 else { continue }
                    var ranges: [ClosedRange<Int64>] = []
                    var next: Int64 = 1
                    // The keys from the table's leaves (where Z_PK is the rowid), their records not
                    // read; SQLite where the pages cannot tell them all.
                    let keyIsRowid = store.schema.table(root.table)?.rowidAlias?.name.uppercased() == "Z_PK"
                    if keyIsRowid, let scan = live?.scan(root.table, digests: false), let gaps = scan.keyGaps {
                        for gap in gaps {
                            guard gap.lowerBound <= issued else { break }
                            ranges.append(gap.lowerBound...min(gap.upperBound, issued))
                        }
                        next = scan.nextKey
                    } else {
                        let keys = try Int64.fetchCursor(db, sql: "SELECT Z_PK FROM \(SQL.identifier(root.table)) WHERE Z_PK BETWEEN 1 AND ? ORDER BY Z_PK", arguments: [issued])
                        while let key = try keys.next() {
                            if key > next { ranges.append(next...(key - 1)) }
                            next = max(next, key + 1)
                        }
                    }
                    if next <= issued { ranges.append(next...issued) }
                    guard !ranges.isEmpty else { continue }
                    let mine = recoveredKeys[root.table.uppercased()] ?? []
                    // Ranges are in order: each key found by binary search.
                    let count = mine.filter { key in
                        var low = 0, high = ranges.count
                        while low < high {
                            let middle = (low + high) / 2
                            if ranges[middle].upperBound < key { low = middle + 1 } else { high = middle }
                        }
                        return low < ranges.count && ranges[low].contains(key)
                    }.count
                    try body(MissingKeys(entity: root.name, issued: issued, ranges: ranges, recovered: count))
                }
            }
        } catch {
            throw StoreConnection.translate(error, file: store.file)
        }
    }
}

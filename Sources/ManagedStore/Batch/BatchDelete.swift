import Foundation
import GRDB

/// Batch deletes: the matching rows and, in the same exclusive transaction, the delete
/// rules of their relationships, as current Core Data applies them (ARCHITECTURE.md,
/// "Write paths"): cascade deletes the destinations (and theirs, to the end), deny fails the
/// whole request when a destination would survive, and nullify clears the keys and join
/// rows that point at deleted rows. A mandatory to-one inverse cannot be nullified: the
/// request fails, as Core Data's trigger does ("mandatory OTO nullify inverse").
extension Coordinator {
    public func execute(_ request: BatchDeleteRequest, collectingIDs: Bool = false, origin: HistoryOrigin? = nil) throws -> BatchResult {
        let entity = try store.entity(request.entityName)
        let (condition, warnings) = try BatchCondition.make(request.predicate, text: request.predicateText, entity: entity, mapping: mapping)
        let entityColumn = entity.tableHasSubentities ? "t0.\(SQL.identifier(entity.entityColumn ?? "Z_ENT"))" : "0"
        var select = SQLFragment("SELECT t0.Z_PK, \(entityColumn) FROM \(SQL.identifier(entity.table)) t0")
        if let condition { select = select + " WHERE " + condition }

        var result = try write { db -> BatchResult in
            var doomed = DoomedRows(mapping: mapping)
            let matched = try BatchCondition.collect(select, entity: entity, mapping: mapping, db: db)
            for (name, keys) in matched {
                let concrete = mapping.entity(named: name) ?? entity
                for key in keys { doomed.add(concrete, key) }
            }
            try BatchDeleteRules(db: db, mapping: mapping, store: store).apply(to: &doomed)
            var result = BatchResult(storeUUID: store.uuid)
            result.count = matched.values.reduce(0) { $0 + $1.count }
            if let recorder = HistoryWriter(db: db, store: store, origin: origin ?? HistoryOrigin(author: nil, contextName: nil)) {
                for (name, keys) in doomed.keysByEntity().sorted(by: { $0.key < $1.key }) {
                    guard let concrete = mapping.entity(named: name) else { continue }
                    for key in keys { try recorder.delete(concrete, key) }
                }
                try recorder.finish()
            }
            for (table, keys) in doomed.keysByTable() {
                try BatchRows.inChunks(keys) { placeholders, chunk in
                    try StoreWriter(db: db, mapping: mapping).execute("DELETE FROM \(SQL.identifier(table)) WHERE Z_PK IN \(placeholders)",
                                                                       chunk.map(\.databaseValue))
                }
            }
            if collectingIDs || request.resultType == .ids {
                result.deleted = matched
                var cascaded = doomed.keysByEntity()
                for (name, keys) in matched {
                    let mine = Set(keys)
                    cascaded[name] = cascaded[name]?.filter { !mine.contains($0) }
                    if cascaded[name]?.isEmpty == true { cascaded[name] = nil }
                }
                result.cascaded = cascaded
            }
            return result
        }
        result.warnings = warnings
        return result
    }
}

/// The rows a batch delete removes, by table, with each key's concrete entity (its `Z_ENT`;
/// only Core Data stores, where every concrete entity has one, can be written to).
struct DoomedRows {
    let mapping: StoreMapping
    private var rows: [String: [Int64: Int]] = [:]

    init(mapping: StoreMapping) { self.mapping = mapping }

    /// Adds a row; false if it was already there.
    @discardableResult
    mutating func add(_ entity: EntityMapping, _ key: Int64) -> Bool {
        rows[entity.table, default: [:]].updateValue(entity.entityID ?? 0, forKey: key) == nil
    }

    func contains(_ table: String, _ key: Int64) -> Bool { rows[table]?[key] != nil }

    func keysByTable() -> [(String, [Int64])] {
        rows.map { ($0.key, $0.value.keys.sorted()) }.sorted { $0.0 < $1.0 }
    }

    func keysByEntity() -> [String: [Int64]] {
        var result: [String: [Int64]] = [:]
        for (_, keys) in rows {
            for (key, id) in keys { result[mapping.entity(withID: id)?.name ?? "", default: []].append(key) }
        }
        return result.mapValues { $0.sorted() }
    }

    /// The doomed keys of one concrete entity.
    func keys(of entity: EntityMapping) -> [Int64] {
        guard let id = entity.entityID else { return [] }
        return (rows[entity.table] ?? [:]).filter { $0.value == id }.keys.sorted()
    }
}

/// Applies the delete rules of every doomed row's relationships: first the cascade closure,
/// then deny (over the closure, so a destination deleted by a cascade does not deny), then
/// the nullifying writes.
struct BatchDeleteRules {
    let db: Database
    let mapping: StoreMapping
    let store: PersistentStore

    func apply(to doomed: inout DoomedRows) throws {
        var pending = mapping.entities.map { ($0, doomed.keys(of: $0)) }.filter { !$0.1.isEmpty }
        while let (entity, keys) = pending.popLast() {
            for r in entity.relationships where r.relationship.deleteRule == .cascade {
                var added: [String: (EntityMapping, [Int64])] = [:]
                try destinations(of: r, from: entity, keys) { _, key, destination in
                    if doomed.add(destination, key) { added[destination.name, default: (destination, [])].1.append(key) }
                }
                pending += added.values.map { ($0.0, $0.1) }
            }
        }
        for entity in mapping.entities {
            let keys = doomed.keys(of: entity)
            guard !keys.isEmpty else { continue }
            for r in entity.relationships where r.relationship.deleteRule == .deny {
                var blocked: (source: Int64, count: Int)?
                try destinations(of: r, from: entity, keys) { source, key, destination in
                    guard !doomed.contains(destination.table, key) else { return }
                    if blocked == nil { blocked = (source, 0) }
                    if blocked?.source == source { blocked?.count += 1 }
                }
                if let blocked {
                    let id = ObjectID(storeUUID: store.uuid, entityName: entity.name, primaryKey: blocked.source)
                    throw ContextError.deleteDenied(object: id.uri, relationship: r.relationship.name, destinations: blocked.count)
                }
            }
            for r in entity.relationships { try nullify(r, of: entity, keys, doomed: doomed) }
        }
    }

    /// Clears what points at the doomed rows through one relationship: the inverse's key
    /// column in the destination table, or the join rows.
    private func nullify(_ r: RelationshipMapping, of entity: EntityMapping, _ keys: [Int64], doomed: DoomedRows) throws {
        let writer = StoreWriter(db: db, mapping: mapping)
        switch r.storage {
        case .joinTable(let table, let source, _, _):
            try BatchRows.inChunks(keys) { placeholders, chunk in
                try writer.execute("DELETE FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(source)) IN \(placeholders)", chunk.map(\.databaseValue))
            }
        case .inverseForeignKey(let table, let column, let order), .hiddenForeignKey(let table, let column, let order):
            var sets = ["\(SQL.identifier(column)) = NULL"]
            if let order { sets.append("\(SQL.identifier(order)) = NULL") }
            if let destination = mapping.entity(named: r.relationship.destinationEntityName),
               let inverse = r.relationship.inverseName.flatMap(destination.relationship) {
                if case .foreignKey(_, let entityColumn?) = inverse.storage { sets.append("\(SQL.identifier(entityColumn)) = NULL") }
                if !inverse.relationship.isOptional, !inverse.relationship.isToMany {
                    var survivors = 0
                    try destinations(of: r, from: entity, keys) { _, key, d in if !doomed.contains(d.table, key) { survivors += 1 } }
                    if survivors > 0 {
                        throw StoreError.sqlite("Batch delete failed due to mandatory OTO nullify inverse on \(destination.name)/\(inverse.relationship.name)")
                    }
                }
            }
            sets.append("Z_OPT = (Z_OPT + 1)")
            try BatchRows.inChunks(keys) { placeholders, chunk in
                try writer.execute("UPDATE OR FAIL \(SQL.identifier(table)) SET \(sets.joined(separator: ", ")) WHERE \(SQL.identifier(column)) IN \(placeholders)",
                                   chunk.map(\.databaseValue))
            }
        case .foreignKey, .none:
            // A to-one kept in this row goes with it; a to-one inverse keeps its own key,
            // cleared from that side's inverse-key storage above.
            return
        }
    }

    /// The destinations of a relationship from many source rows: (source key, destination
    /// key, destination's concrete entity).
    private func destinations(of r: RelationshipMapping, from source: EntityMapping, _ keys: [Int64],
                              _ body: (Int64, Int64, EntityMapping) throws -> Void) throws {
        guard let destination = mapping.entity(named: r.relationship.destinationEntityName) else { return }
        let entityColumn = destination.tableHasSubentities ? "d.\(SQL.identifier(destination.entityColumn ?? "Z_ENT"))" : "0"
        let dTable = SQL.identifier(destination.table)
        let prefix: String
        switch r.storage {
        case .foreignKey(let column, _):
            prefix = "SELECT s.Z_PK, d.Z_PK, \(entityColumn) FROM \(SQL.identifier(source.table)) s JOIN \(dTable) d ON d.Z_PK = s.\(SQL.identifier(column)) WHERE s.Z_PK IN "
        case .inverseForeignKey(let table, let column, _), .hiddenForeignKey(let table, let column, _):
            prefix = "SELECT d.\(SQL.identifier(column)), d.Z_PK, \(entityColumn) FROM \(SQL.identifier(table)) d WHERE d.\(SQL.identifier(column)) IN "
        case .joinTable(let table, let source, let target, _):
            prefix = "SELECT j.\(SQL.identifier(source)), d.Z_PK, \(entityColumn) FROM \(SQL.identifier(table)) j JOIN \(dTable) d ON d.Z_PK = j.\(SQL.identifier(target)) WHERE j.\(SQL.identifier(source)) IN "
        case .none:
            return
        }
        try BatchRows.inChunks(keys) { placeholders, chunk in
            let statement = try db.makeStatement(sql: prefix + placeholders)
            let columns = ColumnReader(statement.sqliteStatement)
            try columns.bind(chunk.map(\.databaseValue), db)
            while try columns.step(db) {
                let concrete = destination.tableHasSubentities ? mapping.entity(withID: Int(columns.int64(2))) ?? destination : destination
                try body(columns.int64(0), columns.int64(1), concrete)
            }
        }
    }
}

/// Small helpers for statements over many keys.
enum BatchRows {
    static let chunkSize = 500

    /// `(?, ?, …)` and the keys it binds, a chunk at a time.
    static func inChunks(_ keys: [Int64], _ body: (String, ArraySlice<Int64>) throws -> Void) throws {
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + chunkSize, keys.count)]
            try body("(" + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")", chunk)
            start += chunkSize
        }
    }
}

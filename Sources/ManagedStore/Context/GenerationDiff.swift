import Foundation
import GRDB

/// One object that differs between two generations.
public struct GenerationChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case inserted, updated, deleted
    }

    public var kind: Kind
    public var objectID: ObjectID
    /// `Z_OPT` in the older and the newer generation (nil where the row is absent).
    public var fromVersion: Int64?
    public var toVersion: Int64?
}

/// What changed between two generations, from `Z_PK` and `Z_OPT` alone: a row only in the
/// newer one was inserted, only in the older one deleted, and in both with another `Z_OPT`
/// updated (every save and batch update bumps it). Each entity's rows are read in key order
/// from both snapshots at once and merged, so memory stays flat whatever the store's size.
public enum GenerationDiff {
    /// The changes from the older generation to the newer one; nil stands for the newest
    /// committed state.
    public static func changes(_ coordinator: Coordinator, from older: Generation?, to newer: Generation?,
                               _ body: (GenerationChange) throws -> Void) throws {
        let store = coordinator.store
        if let older, older === newer { return }
        let entities = store.mapping.entities.filter { !$0.isAbstract && $0.entityID != nil }.sorted { $0.name < $1.name }
        try read(older, coordinator) { a in
            try read(newer, coordinator) { b in
                for entity in entities {
                    try diff(entity, store: store, a, b, body)
                }
            }
        }
    }

    /// The newest state is read in a snapshot of its own, so that every entity is read at
    /// the same transaction even while other processes commit.
    private static func read<T>(_ generation: Generation?, _ coordinator: Coordinator, _ body: (Database) throws -> T) throws -> T {
        try (generation ?? Generation(token: "newest", file: coordinator.store.file, log: coordinator.store.log)).read(body)
    }

    private static func diff(_ entity: EntityMapping, store: PersistentStore, _ a: Database, _ b: Database,
                             _ body: (GenerationChange) throws -> Void) throws {
        let key = SQL.identifier(entity.primaryKeyColumn)
        let version = entity.versionColumn.map(SQL.identifier) ?? "0"
        var sql = "SELECT \(key), \(version) FROM \(SQL.identifier(entity.table))"
        if entity.tableHasSubentities, let column = entity.entityColumn, let id = entity.entityID {
            sql += " WHERE \(SQL.identifier(column)) = \(id)"
        }
        sql += " ORDER BY \(key)"
        let (old, new) = (try a.makeStatement(sql: sql), try b.makeStatement(sql: sql))
        let (x, y) = (ColumnReader(old.sqliteStatement), ColumnReader(new.sqliteStatement))
        var (hasX, hasY) = (try x.step(a), try y.step(b))
        func id(_ key: Int64) -> ObjectID { ObjectID(storeUUID: store.uuid, entityName: entity.name, primaryKey: key) }
        while hasX || hasY {
            let kx = hasX ? x.int64(0) : Int64.max, ky = hasY ? y.int64(0) : Int64.max
            if hasX && (!hasY || kx < ky) {
                try body(GenerationChange(kind: .deleted, objectID: id(kx), fromVersion: x.int64(1), toVersion: nil))
                hasX = try x.step(a)
            } else if hasY && (!hasX || ky < kx) {
                try body(GenerationChange(kind: .inserted, objectID: id(ky), fromVersion: nil, toVersion: y.int64(1)))
                hasY = try y.step(b)
            } else {
                if x.int64(1) != y.int64(1) {
                    try body(GenerationChange(kind: .updated, objectID: id(kx), fromVersion: x.int64(1), toVersion: y.int64(1)))
                }
                (hasX, hasY) = (try x.step(a), try y.step(b))
            }
        }
    }
}

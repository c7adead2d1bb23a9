import Foundation
import GRDB
import ManagedStore

/// Bulk-loads objects into a store straight through SQL, for the example generator and for
/// tests that build their stores: rows with `Z_ENT` and `Z_OPT = 1`, keys from a running
/// counter per table, and `Z_PRIMARYKEY.Z_MAX` brought up to date at the end.
public final class StoreLoader {
    public let mapping: StoreMapping
    private let db: Database
    private var maxPK: [String: Int64] = [:]
    private var statements: [String: Statement] = [:]

    /// Opens `path` for writing and runs `body` in one transaction.
    public static func load(_ path: String, _ body: (StoreLoader) throws -> Void) throws {
        let store = try PersistentStore(path: path)
        let mapping = store.mapping
        try store.reader.close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let loader = StoreLoader(mapping: mapping, db: db)
            for row in try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY") {
                if let name = row.lenient(0, as: String.self), let entity = mapping.entity(named: name) {
                    loader.maxPK[entity.table] = max(loader.maxPK[entity.table] ?? 0, row.lenient(1) ?? 0)
                }
            }
            try body(loader)
            try loader.finish()
        }
        try queue.close()
    }

    private init(mapping: StoreMapping, db: Database) {
        self.mapping = mapping
        self.db = db
    }

    /// Inserts an object. `values` are keyed by attribute name (already in storage form:
    /// dates as reference-date seconds, UUIDs as 16-byte blobs) or by to-one relationship
    /// name (the destination's primary key, with its entity taken from the mapping).
    @discardableResult
    public func insert(_ entityName: String, _ values: [String: DatabaseValueConvertible?],
                       toOneEntities: [String: String] = [:]) throws -> Int64 {
        guard let entity = mapping.entity(named: entityName), let id = entity.entityID else {
            throw StoreError.unknownEntity(name: entityName, suggestion: nil)
        }
        let pk = (maxPK[entity.table] ?? 0) + 1
        maxPK[entity.table] = pk
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var arguments: [DatabaseValueConvertible?] = [pk, id, 1]
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            if let attribute = entity.attribute(name), let column = attribute.column {
                columns.append(column)
                arguments.append(value)
            } else if let relationship = entity.relationship(name),
                      case .foreignKey(let column, let entityColumn) = relationship.storage {
                columns.append(column)
                arguments.append(value)
                if let entityColumn {
                    let target = toOneEntities[name] ?? relationship.relationship.destinationEntityName
                    columns.append(entityColumn)
                    arguments.append(mapping.entity(named: target)?.entityID)
                }
            } else {
                throw StoreError.unknownProperty(entity: entity.name, name: name)
            }
        }
        let sql = "INSERT INTO \(SQL.identifier(entity.table)) (\(columns.map(SQL.identifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        let statement = try statements[sql] ?? db.makeStatement(sql: sql)
        statements[sql] = statement
        try statement.execute(arguments: StatementArguments(arguments))
        return pk
    }

    /// Adds `destination` to a to-many relationship of `source` (join-table row, or the
    /// inverse key in the destination row).
    public func relate(_ entityName: String, _ source: Int64, _ relationshipName: String, _ destination: Int64,
                       order: Int64? = nil) throws {
        guard let entity = mapping.entity(named: entityName), let relationship = entity.relationship(relationshipName) else {
            throw StoreError.unknownProperty(entity: entityName, name: relationshipName)
        }
        switch relationship.storage {
        case .joinTable(let table, let sourceColumn, let destinationColumn, let orderColumn):
            var columns = [sourceColumn, destinationColumn], args: [DatabaseValueConvertible?] = [source, destination]
            if let orderColumn { columns.append(orderColumn); args.append(order ?? 0) }
            try db.execute(sql: "INSERT OR REPLACE INTO \(SQL.identifier(table)) (\(columns.map(SQL.identifier).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                           arguments: StatementArguments(args))
        case .inverseForeignKey(let table, let column, let orderColumn), .hiddenForeignKey(let table, let column, let orderColumn):
            var sets = ["\(SQL.identifier(column)) = ?"], args: [DatabaseValueConvertible?] = [source]
            if let orderColumn { sets.append("\(SQL.identifier(orderColumn)) = ?"); args.append(order ?? 0) }
            args.append(destination)
            try db.execute(sql: "UPDATE \(SQL.identifier(table)) SET \(sets.joined(separator: ", ")) WHERE Z_PK = ?",
                           arguments: StatementArguments(args))
        case .foreignKey(let column, _):
            try db.execute(sql: "UPDATE \(SQL.identifier(entity.table)) SET \(SQL.identifier(column)) = ? WHERE Z_PK = ?",
                           arguments: [destination, source])
        case .none(let reason):
            throw StoreError.sqlite("\(entityName).\(relationshipName) has no storage: \(reason)")
        }
    }

    private func finish() throws {
        for entity in mapping.entities where entity.superentityName == nil {
            guard let id = entity.entityID, let max = maxPK[entity.table] else { continue }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [max, id])
        }
    }
}

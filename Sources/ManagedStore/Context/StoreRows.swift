import Foundation
import GRDB

/// Reads objects' rows and relationships out of the store, for firing faults. Every read
/// goes through the same `FetchPlan` SQL a fetch uses, so a fault sees exactly the
/// values a fetch would.
enum StoreRows {
    /// The rows of `keys` in `entity`'s table, by object ID; missing rows are absent.
    static func read(_ entity: EntityMapping, keys: [Int64], store: PersistentStore, db: Database) throws -> [ObjectID: RowSnapshot] {
        var request = FetchRequest(entityName: entity.name)
        request.primaryKeys = keys
        let plan = try FetchPlan(request, store: store)
        var rows: [ObjectID: RowSnapshot] = [:]
        try plan.forEach(db) { row in
            guard let id = row.objectID else { return }
            rows[id] = snapshot(row, plan: plan)
        }
        return rows
    }

    static func snapshot(_ row: FetchedRow, plan: FetchPlan) -> RowSnapshot {
        var values: [String: ObjectValue] = [:]
        for (property, value) in zip(plan.properties, row.values) { values[property.name] = value }
        return RowSnapshot(values: values, version: row.version ?? 0)
    }

    /// The destinations of a to-many relationship of one object, in the order the store
    /// keeps (the `Z_FOK_` column of an ordered relationship), else by primary key.
    static func destinations(of id: ObjectID, _ relationship: RelationshipMapping, store: PersistentStore,
                             db: Database) throws -> [ObjectID] {
        guard let destination = store.mapping.entity(named: relationship.relationship.destinationEntityName) else { return [] }
        let entityColumn = destination.tableHasSubentities ? "d.\(SQL.identifier(destination.entityColumn ?? "Z_ENT"))" : "0"
        let sql: String
        switch relationship.storage {
        case .inverseForeignKey(let table, let column, let order), .hiddenForeignKey(let table, let column, let order):
            sql = "SELECT \(entityColumn), d.Z_PK FROM \(SQL.identifier(table)) d WHERE d.\(SQL.identifier(column)) = ?"
                + " ORDER BY " + (order.map { "d.\(SQL.identifier($0)), " } ?? "") + "d.Z_PK"
        case .joinTable(let table, let source, let target, let order):
            sql = "SELECT \(entityColumn), d.Z_PK FROM \(SQL.identifier(table)) j JOIN \(SQL.identifier(destination.table)) d"
                + " ON d.Z_PK = j.\(SQL.identifier(target)) WHERE j.\(SQL.identifier(source)) = ?"
                + " ORDER BY " + (order.map { "j.\(SQL.identifier($0)), " } ?? "") + "d.Z_PK"
        case .foreignKey, .none:
            return []
        }
        var ids: [ObjectID] = []
        let statement = try db.makeStatement(sql: sql)
        let columns = ColumnReader(statement.sqliteStatement)
        try columns.bind([id.primaryKey.databaseValue], db)
        let timer = store.log?.shows(1) == true ? SQLTimer() : nil
        while try columns.step(db) {
            let name = destination.tableHasSubentities ? (store.mapping.entity(withID: Int(columns.int64(0)))?.name ?? destination.name) : destination.name
            ids.append(ObjectID(storeUUID: store.uuid, entityName: name, primaryKey: columns.int64(1)))
        }
        if let timer, let log = store.log {
            let elapsed = timer.elapsed
            log.fetched(rows: ids.count, entity: destination.name, sql: sql, statement: columns.handle, stepping: elapsed, total: elapsed)
            log.annotation("to-many relationship fault \"\(relationship.relationship.name)\" for objectID \(id) fulfilled from database.  Got \(ids.count) rows")
        }
        return ids
    }
}

import Foundation
import GRDB

/// One fetched object (or dictionary): its ID when the result type has one, and its
/// property values in the plan's order.
public struct FetchedRow {
    public let objectID: ObjectID?
    public let values: [FetchedValue]
}

public enum FetchedValue: Equatable {
    case attribute(AttributeValue)
    /// A to-one relationship: the destination's ID, or nil.
    case object(ObjectID?)
}

extension FetchPlan {
    /// Runs a count plan.
    public func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: statement.sql, arguments: StatementArguments(statement.arguments)) ?? 0
    }

    /// Streams the rows through `body` as SQLite produces them; nothing is collected, so
    /// memory stays flat whatever the number of rows. Returns how many rows there were.
    @discardableResult
    public func forEach(_ db: Database, _ body: (FetchedRow) throws -> Void) throws -> Int {
        var count = 0
        let cursor = try Row.fetchCursor(db, sql: statement.sql, arguments: StatementArguments(statement.arguments))
        guard let batchStatement, let size = request.batchSize else {
            while let row = try cursor.next() {
                try body(decode(row))
                count += 1
            }
            return count
        }
        // Batched, as Core Data's fetchBatchSize: the IDs first, then each batch's rows.
        var ids: [Int64] = []
        while let row = try cursor.next() { ids.append(row[1]) }
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(start + size, ids.count)])
            let placeholders = "(" + Array(repeating: "?", count: batch.count).joined(separator: ", ") + ")"
            var rows: [Int64: Row] = [:]
            for row in try Row.fetchAll(db, sql: batchStatement + placeholders, arguments: StatementArguments(batch)) {
                rows[row[1]] = row
            }
            for id in batch {
                if let row = rows[id] { try body(decode(row)); count += 1 }
            }
            start += size
        }
        return count
    }

    func decode(_ row: Row) -> FetchedRow {
        var objectID: ObjectID?
        if let primaryKeyIndex, let entityIndex {
            objectID = makeObjectID(entityID: row[entityIndex], fallback: entity.name, primaryKey: row[primaryKeyIndex])
        }
        var values: [FetchedValue] = []
        values.reserveCapacity(properties.count)
        for property in properties {
            let stored = FetchPlan.stored(row[property.index] as DatabaseValue)
            if let attribute = property.attribute {
                values.append(.attribute(AttributeValueDecoder.decode(stored, as: attribute, store: storeFile)))
            } else if case .integer(let key) = stored {
                let entityID: Int64? = property.entityIndex.flatMap { row[$0] }
                values.append(.object(makeObjectID(entityID: entityID, fallback: property.destination ?? "", primaryKey: key)))
            } else {
                values.append(.object(nil))
            }
        }
        return FetchedRow(objectID: objectID, values: values)
    }

    func makeObjectID(entityID: Int64?, fallback: String, primaryKey: Int64) -> ObjectID {
        let name = entityID.flatMap { entityNames[$0] } ?? fallback
        return ObjectID(storeUUID: storeUUID, entityName: name, primaryKey: primaryKey)
    }

    static func stored(_ value: DatabaseValue) -> StoredValue {
        switch value.storage {
        case .null: return .null
        case .int64(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .blob(let data): return .blob([UInt8](data))
        }
    }
}

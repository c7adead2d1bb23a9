import Foundation
import GRDB
import GRDBSQLite

/// Where a fetched object's row is: its entity (`Z_ENT`) and primary key. Two numbers, so
/// that handing a row on copies no string (an `ObjectID` holds two); the ID is made from
/// them when something asks for it.
public struct RowKey: Sendable, Hashable {
    public let entityID: Int64
    public let primaryKey: Int64
}

/// One fetched object (or dictionary): its ID when the result type has one, and its
/// property values in the plan's order, as an object holds them (a to-one relationship as
/// the destination's ID), so that handing a value on copies it once and converts nothing.
public struct FetchedRow {
    /// The object ID of a row decoded whole; a row read in place makes it from `key`.
    private let decodedID: ObjectID?
    /// The row's entity and primary key, when the result type has object IDs.
    public let key: RowKey?
    /// In a row read with `decoding:`, the properties not asked for hold `.toOne(nil)` until
    /// `complete()` reads them.
    public let values: [ObjectValue]
    /// The row's `Z_OPT`, for objects: what an update's optimistic lock compares against.
    public var version: Int64? = nil
    /// For a row whose other columns are still unread: the statement, on this row, held
    /// (`owner`), and the same reference uncounted (`statement`), set together. Every use
    /// goes through `statement`: reaching it through the optional `owner` made a generic
    /// copy of it on each (callgrind, `Optional.map`).
    fileprivate var owner: UnreadColumns? = nil
    fileprivate var statement: Unmanaged<UnreadColumns>? = nil
    fileprivate var sequence = 0

    init(objectID: ObjectID?, key: RowKey?, values: [ObjectValue], version: Int64? = nil) {
        decodedID = objectID
        self.key = key
        self.values = values
        self.version = version
    }

    /// The row's object ID, when the result type has one.
    public var objectID: ObjectID? {
        if let decodedID { return decodedID }
        guard let key, let unread = statement?.takeUnretainedValue() else { return nil }
        return unread.plan.objectID(key)
    }

    /// The row with every property decoded. Only while the fetch is on this row, inside the
    /// body it was handed to: a statement cannot go back.
    func complete() throws -> FetchedRow {
        guard let unread = statement?.takeUnretainedValue() else { return self }
        guard unread.sequence == sequence else { throw FetchError.rowNoLongerCurrent }
        var values: [ObjectValue] = []
        return unread.plan.decode(unread.columns, into: &values, needed: nil, identified: true)
    }

    /// The `index`th property's value. One the row was read without is decoded now, only
    /// while the fetch is on this row.
    func value(at index: Int) throws -> ObjectValue {
        guard let unread = statement?.takeUnretainedValue(), !unread.decoded(index) else { return values[index] }
        guard unread.sequence == sequence else { throw FetchError.rowNoLongerCurrent }
        return unread.plan.decode(unread.columns, unread.plan.decoders[index])
    }

    /// The `index`th property's value handed to `body` as it sits in the row, when the row
    /// was read without it; else as decoded.
    func withValue(at index: Int, _ body: (RowValue) throws -> Void) throws {
        try withValues(at: CollectionOfOne(index), body)
    }

    /// The properties at `slots`, in order, each handed to `body` as `withValue(at:)` hands
    /// it. One call a row: the statement is reached, and the row's hold on it counted, once
    /// rather than once per key (`perf stat` on uprobes over `swift_retain`).
    func withValues(at slots: some Collection<Int>, _ body: (RowValue) throws -> Void) throws {
        // The statement without a count of its own: the row, borrowed for this call, holds it.
        guard let statement else {
            for slot in slots { try body(.decoded(values[slot])) }
            return
        }
        try statement._withUnsafeGuaranteedRef { try withValues(at: slots, of: $0, body) }
    }

    private func withValues(at slots: some Collection<Int>, of unread: UnreadColumns, _ body: (RowValue) throws -> Void) throws {
        guard unread.sequence == sequence else { throw FetchError.rowNoLongerCurrent }
        for slot in slots {
            if unread.decoded(slot) {
                try body(.decoded(values[slot]))
            } else if let place = unread.places[slot], try place.read(unread.columns, body) {
                continue
            } else {
                try body(.decoded(value(at: slot)))
            }
        }
    }
}

/// The statement of a fetch that decodes only some columns, so that a row can still be
/// completed while it is current: `sequence` counts the rows stepped to.
private final class UnreadColumns {
    let plan: FetchPlan
    /// Where each property's column is, for those a row hands over in place. Apart from
    /// the plan: reaching a decoder through `plan` copied the plan, and a decoder its
    /// strings, on every value.
    let places: [ColumnPlace?]
    let columns: ColumnReader
    /// The properties each row decodes as it is read.
    let needed: [Bool]
    var sequence = 0

    init(plan: FetchPlan, columns: ColumnReader, needed: [Bool]) {
        self.plan = plan
        places = plan.decoders.map { decoder in decoder.type.flatMap { decoder.readsInPlace ? ColumnPlace(column: Int32(decoder.index), type: $0) : nil } }
        self.columns = columns
        self.needed = needed
    }

    func decoded(_ index: Int) -> Bool { index < needed.count && needed[index] }
}

extension FetchPlan {
    /// Runs a count plan.
    public func count(_ db: Database) throws -> Int {
        let timer = log?.shows(1) == true ? SQLTimer() : nil
        let prepared = try db.makeStatement(sql: statement.sql)
        let columns = ColumnReader(prepared.sqliteStatement)
        try columns.bind(statement.arguments, db)
        let count = try columns.step(db) ? Int(columns.int64(0)) : 0
        if let timer { log?.counted(count, time: timer.elapsed) }
        return count
    }

    /// Streams the rows through `body` as SQLite produces them; nothing is collected, so
    /// memory stays flat whatever the number of rows. Returns how many rows there were.
    ///
    /// `decoding`, one flag per property: only those are decoded, and `complete()` reads
    /// the rest while the row is current. A fetch that shows three keys of ten columns
    /// spent most of its time per row decoding the other seven (`perf record`). A batched
    /// plan, whose rows wait for their batch, decodes them all.
    @discardableResult
    public func forEach(_ db: Database, decoding needed: [Bool]? = nil, _ body: (FetchedRow) throws -> Void) throws -> Int {
        try forEachRow(db, decoding: needed) { try body($0.pointee) }
    }

    /// As `forEach`, handing each row over by its address, valid while `body` runs: a
    /// holder that cannot outlive the body (a noncopyable `FetchedObject`) points at the
    /// row instead of copying it, which a pointer to a borrowed row would have done.
    @discardableResult
    func forEachRow(_ db: Database, decoding needed: [Bool]? = nil, _ body: (UnsafePointer<FetchedRow>) throws -> Void) throws -> Int {
        let prepared = try db.makeStatement(sql: statement.sql)
        let columns = ColumnReader(prepared.sqliteStatement)
        try columns.bind(statement.arguments, db)
        guard let batchStatement, let size = request.batchSize else {
            // One values buffer for every row: the body is done with a row before the next.
            var buffer: [ObjectValue] = []
            buffer.reserveCapacity(decoders.count)
            guard let needed, needed.contains(false) else {
                return try stream(columns, db) {
                    var row = decode(columns, into: &buffer, needed: nil, identified: true)
                    try withUnsafePointer(to: &row, body)
                }
            }
            let unread = UnreadColumns(plan: self, columns: columns, needed: needed)
            let unreadReference = Unmanaged.passUnretained(unread)
            // Keys that are all read in place leave nothing to decode but the object's ID.
            let decodesAny = needed.contains(true)
            return try stream(columns, db) {
                unread.sequence += 1
                var row = decodesAny ? decode(columns, into: &buffer, needed: needed, identified: false) : identify(columns)
                row.owner = unread
                row.statement = unreadReference
                row.sequence = unread.sequence
                try withUnsafePointer(to: &row, body)
            }
        }
        // Batched, as Core Data's fetchBatchSize: the IDs first, then each batch's rows.
        var ids: [Int64] = []
        try stream(columns, db) { ids.append(columns.int64(1)) }
        var count = 0
        var start = 0
        while start < ids.count {
            let batch = Array(ids[start..<min(start + size, ids.count)])
            let placeholders = "(" + Array(repeating: "?", count: batch.count).joined(separator: ", ") + ")"
            var rows: [Int64: FetchedRow] = [:]
            let prepared = try db.makeStatement(sql: batchStatement + placeholders)
            let columns = ColumnReader(prepared.sqliteStatement)
            try columns.bind(batch.map(\.databaseValue), db)
            var buffer: [ObjectValue] = []
            try stream(columns, db) {
                rows[columns.int64(1)] = decode(columns, into: &buffer, needed: nil, identified: true)
                buffer = []
            }
            for id in batch {
                guard var row = rows[id] else { continue }
                try withUnsafePointer(to: &row, body)
                count += 1
            }
            start += size
        }
        return count
    }

    /// Steps a bound statement to its end, calling `body` on each row, and writes the
    /// fetch's debug lines: with the log on, the time spent inside SQLite is measured
    /// apart from the time spent on each row, as Core Data's two fetch timings are.
    @discardableResult
    private func stream(_ columns: ColumnReader, _ db: Database, _ body: () throws -> Void) throws -> Int {
        var count = 0
        guard let log, log.shows(1) else {
            while try columns.step(db) { try body(); count += 1 }
            return count
        }
        let total = SQLTimer()
        var stepping: TimeInterval = 0
        while true {
            let step = SQLTimer()
            let more = try columns.step(db)
            stepping += step.elapsed
            guard more else { break }
            if log.shows(3) { log.details("row values: (" + columns.descriptions().joined(separator: ", ") + ")") }
            try body()
            count += 1
        }
        log.fetched(rows: count, entity: entity.name, sql: columns.sql, statement: columns.handle,
                    stepping: stepping, total: total.elapsed)
        return count
    }

    /// The row's entity and primary key, when the result type has object IDs.
    func key(_ row: ColumnReader) -> RowKey? {
        guard let primaryKeyIndex, let entityIndex else { return nil }
        return RowKey(entityID: row.int64(entityIndex), primaryKey: row.int64(primaryKeyIndex))
    }

    /// The object ID of a row of this plan.
    func objectID(_ key: RowKey) -> ObjectID {
        makeObjectID(entityID: key.entityID, fallback: entity.name, primaryKey: key.primaryKey)
    }

    /// The name of the entity of a row of this plan.
    func entityName(_ key: RowKey) -> String {
        entityName(entityID: key.entityID, fallback: entity.name)
    }

    /// A row with nothing decoded but its key, every value read later from the statement
    /// while it is on the row.
    private func identify(_ row: ColumnReader) -> FetchedRow {
        // No version: it is read when the row is completed, the one time it is needed.
        FetchedRow(objectID: nil, key: key(row), values: [])
    }

    /// The row's values; with `identified`, its object ID made now, for a row that will
    /// not have its statement to make it from later.
    func decode(_ row: ColumnReader, into values: inout [ObjectValue], needed: [Bool]?, identified: Bool) -> FetchedRow {
        let key = key(row)
        values.removeAll(keepingCapacity: true)
        // Two loops rather than a test per value: every row of a full fetch takes the first.
        if let needed {
            for (i, decoder) in decoders.enumerated() {
                values.append(i < needed.count && !needed[i] ? .toOne(nil) : decode(row, decoder))
            }
        } else {
            for decoder in decoders { values.append(decode(row, decoder)) }
        }
        return FetchedRow(objectID: identified ? key.map(objectID) : nil, key: key, values: values,
                          version: versionIndex.map { row.int64($0) })
    }

    @inline(__always)
    fileprivate func decode(_ row: ColumnReader, _ decoder: Decoder) -> ObjectValue {
        // A UUID column is read from SQLite's bytes in place: no array per row.
        if decoder.type == .uuid, let uuid = row.uuid(decoder.index) { return .attribute(.uuid(uuid)) }
        let stored = row.stored(decoder.index)
        if let type = decoder.type {
            return .attribute(AttributeValueDecoder.decode(stored, type: type, external: decoder.external, json: decoder.json, store: storeFile))
        }
        guard case .integer(let key) = stored else { return .toOne(nil) }
        let entityID: Int64? = decoder.entityIndex.flatMap { row.isNull($0) ? nil : row.int64($0) }
        return .toOne(makeObjectID(entityID: entityID, fallback: decoder.destination, primaryKey: key))
    }

    func makeObjectID(entityID: Int64?, fallback: String, primaryKey: Int64) -> ObjectID {
        ObjectID(storeUUID: storeUUID, entityName: entityID.map { entityName(entityID: $0, fallback: fallback) } ?? fallback,
                 primaryKey: primaryKey)
    }

    /// The table's entity with this `Z_ENT`; `fallback` for a number no entity of the table
    /// has (a hand-edited row).
    private func entityName(entityID: Int64, fallback: String) -> String {
        guard entityID >= 0, entityID < entityNames.count, let known = entityNames[Int(entityID)] else { return fallback }
        return known
    }
}

/// A plain attribute's column and type: no references, so that reading a value in place
/// retains nothing.
private struct ColumnPlace {
    let column: Int32
    let type: AttributeType

    /// Hands the value in place to `body` when the column holds what the type stores (as
    /// `AttributeValueDecoder` would decode it); false, calling nothing, for a value that
    /// must be decoded. Handed over rather than returned: an optional `RowValue` was
    /// destroyed through the runtime's generic witness, three times a row of three keys.
    func read(_ row: ColumnReader, _ body: (RowValue) throws -> Void) rethrows -> Bool {
        let handle = row.handle
        let storage = sqlite3_column_type(handle, column)
        if storage == SQLITE_NULL { try body(.null); return true }
        switch (type, storage) {
        case (.string, SQLITE_TEXT):
            guard let text = sqlite3_column_text(handle, column) else { try body(.text(UnsafeBufferPointer(start: nil, count: 0))); return true }
            try body(.text(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))))
        case (.integer16, SQLITE_INTEGER), (.integer32, SQLITE_INTEGER), (.integer64, SQLITE_INTEGER):
            try body(.integer(sqlite3_column_int64(handle, column)))
        case (.double, SQLITE_FLOAT), (.float, SQLITE_FLOAT), (.decimal, SQLITE_FLOAT):
            try body(.real(sqlite3_column_double(handle, column)))
        case (.double, SQLITE_INTEGER), (.float, SQLITE_INTEGER), (.decimal, SQLITE_INTEGER):
            try body(.real(Double(sqlite3_column_int64(handle, column))))
        case (.boolean, SQLITE_INTEGER): try body(.bool(sqlite3_column_int64(handle, column) != 0))
        case (.date, SQLITE_FLOAT): try body(.date(sqlite3_column_double(handle, column)))
        case (.date, SQLITE_INTEGER): try body(.date(Double(sqlite3_column_int64(handle, column))))
        default: return false
        }
        return true
    }
}

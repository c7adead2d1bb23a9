import Foundation
import GRDB

/// Phase 5: records of the main file that no live cell holds, carved from the free space of
/// its tables' leaves (freeblocks and unallocated space) and from pages on the freelist or in
/// no b-tree that still hold a table leaf's cells (`CellCarver`, `PageMap`).
///
/// A record equal to a live row (a cell left behind when the b-tree moved it, a page copied)
/// is never reported: a record with its rowid is looked up by it in the store's newest state,
/// a rebuilt one (its rowid lost) compared with every live row of its table. A Core Data
/// row whose key a live row holds with other values is an earlier version of a live object,
/// not a deleted one, and is not reported either; a plain table reuses rowids, so there a
/// record whose rowid a live row holds with other values is a deleted row. Each record is
/// reported once, whatever the spaces it lies in.
struct CarvedRecords {
    let store: PersistentStore
    /// The newest state through the format reader, shared with `MissingKeys`.
    let live: LiveRecords?
    /// The tables to carve: the entities' asked for, or every table.
    let wanted: (TableShape) -> Bool

    func run(_ body: (RecoveredObject) throws -> Void) throws {
        // The schema the main file holds: its own, not the -wal's newest.
        let file = try store.file.reading(generation: "w0")
        let queue = try StoreConnection.open(file, readonly: true)
        defer { try? StoreConnection.close(queue) }
        let (live, otherRoots) = try queue.read { db in
            (try TableShape.read(db, mapping: store.mapping),
             try Int64.fetchAll(db, sql: "SELECT rootpage FROM sqlite_master WHERE rootpage > 0").compactMap { $0 <= Int64(UInt32.max) ? UInt32($0) : nil })
        }
        guard let map = PageMap(path: store.path) else { return }
        for (index, shape) in live.enumerated() { map.walk(root: shape.root, as: .table(index: index, leaf: true)) }
        map.walk(root: 1, as: .schema)
        for root in otherRoots { map.walk(root: root, as: .otherTree) }
        // Tables dropped since: their declarations, carved from the schema table's free space,
        // and their pages, walked from their old roots where no live tree has taken them.
        let shapes = live + DroppedTables.find(map, live: live)
        for index in live.count..<shapes.count { map.walk(root: shapes[index].root, as: .table(index: index, leaf: true)) }
        map.walkFreelist()
        var liveRows = LiveRowSet(store: store, live: self.live)
        var reported = Set<UInt64>()
        // Per table and entity, where its attributes are among the columns.
        var columns: [ColumnsKey: EntityColumns] = [:]
        let usable = map.usableSize
        for number in 1...map.pageCount {
            if number & 255 == 0 { try Cancellation.check() }
            let page = UInt32(number)
            let owner = map.owners[number]
            // Pages that hold no free space to carve are not read: an index's, a table's
            // interior pages, the schema's (`DroppedTables` read it), a table not asked for.
            switch owner {
            case .table(_, false), .schema, .otherTree: continue
            case .table(let index, true) where index < live.count && !wanted(shapes[index]): continue
            default: break
            }
            var found: [(TableShape, CellCarver.Cell, RecoveredObject.CarvedSpace)] = []
            _ = map.withPage(page) { bytes in
                let leaf = BTreePage(bytes, pageNumber: page, usableSize: usable).flatMap { $0.kind == .tableLeaf ? $0 : nil }
                switch owner {
                case .table(let index, true) where index < live.count:
                    guard let leaf, wanted(shapes[index]) else { return }
                    Self.freeSpace(bytes, leaf: leaf, shape: shapes[index], usable: usable) { found.append((shapes[index], $0, $1)) }
                case .table(_, false), .schema, .otherTree:
                    return
                default:
                    // A dropped table's page, a page on the freelist or in no tree: its cells are
                    // rows no live table holds. The table is the one its cells are rows of (a
                    // dropped table's own first); a freelist trunk's header overwrote the page's,
                    // so there every offset is tried.
                    var candidates = shapes.filter(wanted)
                    if case .table(let index, _) = owner, wanted(shapes[index]) { candidates.insert(shapes[index], at: 0) }
                    // A dropped table's root page whose header a freelist trunk overwrote: still its table.
                    if let root = shapes[live.count...].first(where: { $0.root == page }), wanted(root) { candidates.insert(root, at: 0) }
                    for shape in candidates {
                        if let leaf {
                            let cells = Self.cells(bytes, leaf: leaf, shape: shape)
                            guard !cells.isEmpty else { continue }
                            for cell in cells { found.append((shape, cell, .freePage)) }
                            Self.freeSpace(bytes, leaf: leaf, shape: shape, usable: usable) { cell, _ in found.append((shape, cell, .freePage)) }
                        } else if owner == .freelist {
                            // Only a trunk's page: a page in no tree that is no leaf holds nothing to read.
                            var any = false
                            CellCarver.scan(bytes, region: 0..<usable, shape: shape, usable: usable) { cell in
                                any = true
                                found.append((shape, cell, .freePage))
                            }
                            guard any else { continue }
                        } else {
                            continue
                        }
                        break
                    }
                }
            }
            let held = try liveRows.holds(found.map { ($0.1, $0.0) })
            let unreadable = liveRows.unreadable
            for ((shape, cell, space), isLive) in zip(found, held) {
                guard !isLive else { continue }
                var digest = RecordDigest()
                digest.integer(Int64(shape.name.hashValue))
                if let rowid = cell.rowid { digest.integer(rowid) } else { digest.null() }
                guard reported.insert(digest.value ^ RecordDigest.of(cell.values)).inserted else { continue }
                try body(named(cell, shape: shape, source: .carved(page: page, offset: cell.offset, space: space),
                               uncompared: unreadable.contains(shape.name), columns: &columns))
            }
        }
    }

    /// The cells a leaf's pointers name that are rows of `shape`.
    static func cells(_ bytes: UnsafeRawBufferPointer, leaf: BTreePage, shape: TableShape) -> [CellCarver.Cell] {
        var cells: [CellCarver.Cell] = []
        for index in 0..<leaf.cellCount {
            guard let offset = leaf.cellOffset(index), let cell = leaf.tableCell(at: offset), cell.payloadSize == cell.local.count,
                  let values = CellCarver.record(bytes, at: cell.local, shape: shape) else { continue }
            cells.append(CellCarver.Cell(rowid: cell.rowid, values: values, offset: offset, rebuilt: false))
        }
        return cells
    }

    /// The records in a live leaf's freeblocks and its unallocated space (where a page all of
    /// whose cells were deleted keeps them), whole or rebuilt.
    static func freeSpace(_ bytes: UnsafeRawBufferPointer, leaf: BTreePage, shape: TableShape, usable: Int,
                          _ body: (CellCarver.Cell, RecoveredObject.CarvedSpace) -> Void) {
        for block in leaf.freeblocks {
            // Freed cells side by side merge into one block, each keeping the 4 bytes its own
            // freeing overwrote: the scan rebuilds them one after another.
            CellCarver.scan(bytes, region: block, shape: shape, usable: usable) { body($0, .freeblock) }
        }
        CellCarver.scan(bytes, region: leaf.unallocated, shape: shape, usable: usable) { body($0, .unallocated) }
    }

    /// A table and an entity number of its rows.
    struct ColumnsKey: Hashable {
        let table: String
        let entity: Int64
    }

    /// Where an entity's attributes and to-ones are among its table's columns, worked out once.
    struct EntityColumns {
        struct ToOne {
            let name: String
            let index: Int
            let destination: String
            let entityIndex: Int?
        }
        /// An attribute: its name, how its stored value decodes, and its column's place.
        struct Attribute {
            let name: String
            let type: AttributeType
            let external: Bool
            let json: Bool
            let index: Int
        }
        let attributes: [Attribute]
        let toOnes: [ToOne]

        init(_ entity: EntityMapping, shape: TableShape) {
            var positions: [String: Int] = [:]
            for (index, column) in shape.columns.enumerated() where positions[column.uppercased()] == nil { positions[column.uppercased()] = index }
            attributes = entity.attributes.compactMap { a in
                a.column.flatMap { positions[$0.uppercased()] }.map {
                    Attribute(name: a.attribute.name, type: a.attribute.type, external: a.attribute.allowsExternalBinaryDataStorage,
                              json: a.attribute.holdsJSON, index: $0)
                }
            }
            toOnes = entity.relationships.compactMap { r in
                guard case .foreignKey(let column, let entityColumn) = r.storage, let index = positions[column.uppercased()] else { return nil }
                return ToOne(name: r.relationship.name, index: index, destination: r.relationship.destinationEntityName,
                             entityIndex: entityColumn.flatMap { positions[$0.uppercased()] })
            }
        }
    }

    /// The record in Core Data's terms where its table is an entity's, by column otherwise.
    private func named(_ cell: CellCarver.Cell, shape: TableShape, source: RecoveredObject.Source, uncompared: Bool,
                       columns cache: inout [ColumnsKey: EntityColumns]) -> RecoveredObject {
        let caveat = uncompared ? "; the file is damaged under \(shape.name), so it could not be compared with every live row" : ""
        let confidence = cell.rebuilt
            ? RecoveredObject.Confidence(level: .rebuilt, reason: "a freed cell whose first four bytes the freeblock header overwrote: its rowid is lost, and the serial types it held were rebuilt from the table's column types" + caveat)
            : RecoveredObject.Confidence(level: .intact, reason: "a whole cell no live row holds: its rowid and every value parse as a row of \(shape.name)" + caveat)
        var values = cell.values
        if let alias = shape.rowidColumn, let rowid = cell.rowid, alias < values.count { values[alias] = .integer(rowid) }
        if shape.entityNumbers != nil, values.count > 1, case .integer(let number) = values[1], let entity = store.mapping.entity(withID: Int(number)) {
            let key = ColumnsKey(table: shape.name, entity: number)
            let columns = cache[key] ?? EntityColumns(entity, shape: shape)
            cache[key] = columns
            var named: [(key: String, value: ObjectValue)] = []
            named.reserveCapacity(columns.attributes.count + columns.toOnes.count)
            for attribute in columns.attributes where attribute.index < values.count {
                named.append((attribute.name, .attribute(AttributeValueDecoder.decode(values[attribute.index], type: attribute.type, external: attribute.external,
                                                                                      json: attribute.json, store: store.file))))
            }
            for toOne in columns.toOnes where toOne.index < values.count {
                guard case .integer(let key) = values[toOne.index] else {
                    named.append((toOne.name, .toOne(nil)))
                    continue
                }
                var destination = toOne.destination
                if let at = toOne.entityIndex, at < values.count, case .integer(let n) = values[at], let concrete = store.mapping.entity(withID: Int(n)) {
                    destination = concrete.name
                }
                named.append((toOne.name, .toOne(ObjectID(storeUUID: store.uuid, entityName: destination, primaryKey: key))))
            }
            let objectID = cell.rowid.map { ObjectID(storeUUID: store.uuid, entityName: entity.name, primaryKey: $0) }
            return RecoveredObject(entity: entity.name, table: shape.name, objectID: objectID, rowid: cell.rowid, values: named,
                                   source: source, confidence: confidence)
        }
        let plain = zip(shape.columns, values).map { (key: $0.0, value: ObjectValue.attribute(AttributeValueDecoder.raw($0.1))) }
        return RecoveredObject(entity: nil, table: shape.name, objectID: nil, rowid: cell.rowid, values: plain, source: source, confidence: confidence)
    }
}

/// The live rows a carved record is compared with, in the store's newest state: looked up
/// by rowid, or (for a record whose rowid is lost) by the digest of its values among all the
/// table's rows (`RecordDigest`), read once per table when first needed (8 bytes a row).
struct LiveRowSet {
    let store: PersistentStore
    /// Each table's live rows' digests, as the format reader's scan or SQLite read them.
    private var digestsRead: [String: RowDigests] = [:]
    /// The newest state through the format reader (nil when it cannot be set up: SQLite alone).
    private let live: LiveRecords?
    /// Tables whose live rows could not all be read (a damaged file): their records could not
    /// be compared with every live row.
    private(set) var unreadable: Set<String> = []

    init(store: PersistentStore, live: LiveRecords?) {
        self.store = store
        self.live = live
    }

    /// For each record, whether a live row is it, or (a Core Data table's) a later version of
    /// it: one read for them all (a page's).
    mutating func holds(_ records: [(CellCarver.Cell, TableShape)]) throws -> [Bool] {
        guard !records.isEmpty else { return [] }
        var answers: [Bool?] = Array(repeating: nil, count: records.count)
        // The format reader first; SQLite for what it cannot tell.
        var asked = Array(repeating: false, count: records.count)
        if let live {
            for (index, (cell, shape)) in records.enumerated() {
                guard let rowid = cell.rowid else { continue }
                switch live.row(rowid, table: shape.name) {
                case .absent: answers[index] = false
                case .present(let values): answers[index] = shape.entityNumbers != nil || values == cell.values
                case .unknown: continue
                }
                asked[index] = true
            }
        }
        // Without a transaction: a damaged page makes one statement fail, not the whole read.
        if zip(records, asked).contains(where: { !$1 && $0.0.rowid != nil }) {
            ask(records, answers: &answers, asked: asked)
        }
        return try zip(records, answers).map { record, answer in try answer ?? holds(record.0, shape: record.1) }
    }

    /// SQLite's answers for the records with a rowid the format reader could not settle.
    private mutating func ask(_ records: [(CellCarver.Cell, TableShape)], answers: inout [Bool?], asked: [Bool]) {
        store.reader.unsafeRead { db in
            for (index, (cell, shape)) in records.enumerated() where !asked[index] {
                guard let rowid = cell.rowid else { continue }
                // A table the newest state no longer has (dropped): no live row holds anything.
                guard let statement = try? db.cachedStatement(sql: "SELECT * FROM \(SQL.identifier(shape.name)) WHERE rowid = ?") else {
                    answers[index] = false
                    continue
                }
                // A damaged page under the live table: not known to be live (said in the record).
                let found: Row?
                do {
                    found = try Row.fetchOne(statement, arguments: [rowid])
                } catch {
                    answers[index] = false
                    unreadable.insert(shape.name)
                    continue
                }
                guard let row = found else {
                    answers[index] = false
                    continue
                }
                answers[index] = shape.entityNumbers != nil || Self.values(row, shape: shape) == cell.values
            }
        }
    }

    /// Whether a live row is this record (its rowid lost): among the digests of the table's rows.
    private mutating func holds(_ cell: CellCarver.Cell, shape: TableShape) throws -> Bool {
        do {
            let wanted = RecordDigest.of(cell.values)
            if let known = digestsRead[shape.name] { return known.contains(wanted) }
            let digests: RowDigests
            if let scanned = live?.scan(shape.name, digests: true).digests {
                digests = scanned
            } else {
                var all: [UInt64] = []
                try store.reader.unsafeRead { db in
                    let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(SQL.identifier(shape.name))")
                    while let row = try rows.next() { all.append(RecordDigest.of(Self.values(row, shape: shape))) }
                }
                digests = RowDigests(all)
            }
            digestsRead[shape.name] = digests
            return digests.contains(wanted)
        } catch {
            // A table the newest state no longer has (dropped): no live row holds anything; a
            // damaged one cannot be compared with.
            if store.schema.table(shape.name) != nil { unreadable.insert(shape.name) }
            return false
        }
    }

    /// A live row's values as its record holds them: the rowid alias as NULL.
    private static func values(_ row: Row, shape: TableShape) -> [StoredValue] {
        (0..<row.count).map { index in index == shape.rowidColumn ? .null : StoredValue(row[index] as DatabaseValue) }
    }
}

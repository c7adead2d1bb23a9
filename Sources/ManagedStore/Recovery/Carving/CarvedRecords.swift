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
    /// The tables to carve: the entities' asked for, or every table.
    let wanted: (TableShape) -> Bool

    func run(_ body: (RecoveredObject) throws -> Void) throws {
        let live: [TableShape]
        let otherRoots: [UInt32]
        do {
            // The schema the main file holds: its own, not the -wal's newest.
            let file = try store.file.reading(generation: "w0")
            let queue = try StoreConnection.open(file, readonly: true)
            defer { try? StoreConnection.close(queue) }
            (live, otherRoots) = try queue.read { db in
                (try TableShape.read(db, mapping: store.mapping),
                 try Int64.fetchAll(db, sql: "SELECT rootpage FROM sqlite_master WHERE rootpage > 0").compactMap { $0 <= Int64(UInt32.max) ? UInt32($0) : nil })
            }
        } catch let error as StoreError {
            throw error
        }
        guard let map = PageMap(path: store.path) else { return }
        for (index, shape) in live.enumerated() { map.walk(root: shape.root, as: .table(index: index, leaf: true)) }
        map.walk(root: 1, as: .otherTree)
        for root in otherRoots { map.walk(root: root, as: .otherTree) }
        // Tables dropped since: their declarations, carved from the schema table's free space,
        // and their pages, walked from their old roots where no live tree has taken them.
        let shapes = live + DroppedTables.find(map, live: live)
        for index in live.count..<shapes.count { map.walk(root: shapes[index].root, as: .table(index: index, leaf: true)) }
        map.walkFreelist()
        var liveRows = LiveRowSet(store: store)
        var reported = Set<Int>()
        let usable = map.usableSize
        for number in 1...max(1, map.pageCount) {
            if number & 255 == 0 { try Cancellation.check() }
            let page = UInt32(number)
            let owner = map.owners[number]
            var found: [(TableShape, CellCarver.Cell, RecoveredObject.CarvedSpace)] = []
            _ = map.withPage(page) { bytes in
                let leaf = BTreePage(bytes, pageNumber: page, usableSize: usable).flatMap { $0.kind == .tableLeaf ? $0 : nil }
                switch owner {
                case .table(let index, true) where index < live.count:
                    guard let leaf, wanted(shapes[index]) else { return }
                    Self.freeSpace(bytes, leaf: leaf, shape: shapes[index], usable: usable) { found.append((shapes[index], $0, $1)) }
                case .table(_, false), .otherTree:
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
                        } else {
                            var any = false
                            CellCarver.scan(bytes, region: 0..<usable, shape: shape, usable: usable) { cell in
                                any = true
                                found.append((shape, cell, .freePage))
                            }
                            guard any else { continue }
                        }
                        break
                    }
                }
            }
            for (shape, cell, space) in found {
                guard try !liveRows.holds(cell, shape: shape) else { continue }
                var hasher = Hasher()
                hasher.combine(shape.name)
                hasher.combine(cell.rowid)
                hasher.combine(cell.values)
                guard reported.insert(hasher.finalize()).inserted else { continue }
                try body(named(cell, shape: shape, source: .carved(page: page, offset: cell.offset, space: space)))
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

    /// The record in Core Data's terms where its table is an entity's, by column otherwise.
    private func named(_ cell: CellCarver.Cell, shape: TableShape, source: RecoveredObject.Source) -> RecoveredObject {
        let confidence = cell.rebuilt
            ? RecoveredObject.Confidence(level: .rebuilt, reason: "a freed cell whose first four bytes the freeblock header overwrote: its rowid is lost, and the serial types it held were rebuilt from the table's column types")
            : RecoveredObject.Confidence(level: .intact, reason: "a whole cell no live row holds: its rowid and every value parse as a row of \(shape.name)")
        var values = cell.values
        if let alias = shape.rowidColumn, let rowid = cell.rowid, alias < values.count { values[alias] = .integer(rowid) }
        if shape.entityNumbers != nil, values.count > 1, case .integer(let number) = values[1], let entity = store.mapping.entity(withID: Int(number)) {
            var named: [(key: String, value: ObjectValue)] = []
            for attribute in entity.attributes {
                guard let column = attribute.column, let index = shape.columns.firstIndex(where: { $0.caseInsensitiveCompare(column) == .orderedSame }),
                      index < values.count else { continue }
                named.append((attribute.attribute.name, .attribute(AttributeValueDecoder.decode(values[index], as: attribute.attribute, store: store.file))))
            }
            for relationship in entity.relationships {
                guard case .foreignKey(let column, let entityColumn) = relationship.storage,
                      let index = shape.columns.firstIndex(where: { $0.caseInsensitiveCompare(column) == .orderedSame }), index < values.count else { continue }
                guard case .integer(let key) = values[index] else {
                    named.append((relationship.relationship.name, .toOne(nil)))
                    continue
                }
                var destination = relationship.relationship.destinationEntityName
                if let entityColumn, let at = shape.columns.firstIndex(of: entityColumn), at < values.count, case .integer(let n) = values[at],
                   let concrete = store.mapping.entity(withID: Int(n)) { destination = concrete.name }
                named.append((relationship.relationship.name, .toOne(ObjectID(storeUUID: store.uuid, entityName: destination, primaryKey: key))))
            }
            let objectID = cell.rowid.map { ObjectID(storeUUID: store.uuid, entityName: entity.name, primaryKey: $0) }
            return RecoveredObject(entity: entity.name, table: shape.name, objectID: objectID, rowid: cell.rowid, values: named,
                                   source: source, confidence: confidence)
        }
        let plain = zip(shape.columns, values).map { (key: $0.0, value: ObjectValue.attribute(Self.plain($0.1))) }
        return RecoveredObject(entity: nil, table: shape.name, objectID: nil, rowid: cell.rowid, values: plain, source: source, confidence: confidence)
    }

    static func plain(_ value: StoredValue) -> AttributeValue {
        switch value {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .double(d)
        case .text(let s): return .string(s)
        case .blob(let b): return .data(b)
        }
    }
}

/// The live rows a carved record is compared with, in the store's newest state: looked up
/// by rowid, or (for a record whose rowid is lost) by the hash of its values among all the
/// table's rows, read once per table when first needed (8 bytes a row).
struct LiveRowSet {
    let store: PersistentStore
    private var hashes: [String: [Int]] = [:]

    init(store: PersistentStore) {
        self.store = store
    }

    /// Whether a live row is this record, or (a Core Data table's) a later version of it.
    mutating func holds(_ cell: CellCarver.Cell, shape: TableShape) throws -> Bool {
        do {
            if let rowid = cell.rowid {
                let row = try store.reader.read { db in try Row.fetchOne(db, sql: "SELECT * FROM \(SQL.identifier(shape.name)) WHERE rowid = ?", arguments: [rowid]) }
                guard let row else { return false }
                if shape.entityNumbers != nil { return true }
                return Self.values(row, shape: shape) == cell.values
            }
            if hashes[shape.name] == nil {
                var all: [Int] = []
                try store.reader.read { db in
                    let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \(SQL.identifier(shape.name))")
                    while let row = try rows.next() { all.append(Self.hash(Self.values(row, shape: shape))) }
                }
                hashes[shape.name] = all.sorted()
            }
            let wanted = Self.hash(cell.values)
            let list = hashes[shape.name] ?? []
            var low = 0, high = list.count
            while low < high {
                let middle = (low + high) / 2
                if list[middle] < wanted { low = middle + 1 } else { high = middle }
            }
            return low < list.count && list[low] == wanted
        } catch {
            // A table the newest state no longer has (dropped): no live row holds anything.
            return false
        }
    }

    /// A live row's values as its record holds them: the rowid alias as NULL.
    private static func values(_ row: Row, shape: TableShape) -> [StoredValue] {
        (0..<row.count).map { index in index == shape.rowidColumn ? .null : StoredValue(row[index] as DatabaseValue) }
    }

    private static func hash(_ values: [StoredValue]) -> Int {
        var hasher = Hasher()
        hasher.combine(values)
        return hasher.finalize()
    }
}

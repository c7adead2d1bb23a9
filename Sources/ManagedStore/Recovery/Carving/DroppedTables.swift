import Foundation
import GRDB

/// Tables a file no longer declares, found from the schema table's own free space: a
/// dropped table's row of `sqlite_master` (type, name, tbl_name, rootpage, sql) is a deleted
/// record like any other (fileformat2.html, "2.6 Storage Of The SQL Database Schema"). Its
/// declaration gives the columns: it is run, alone, in an empty in-memory database, and
/// SQLite's own `table_info` reads them, as for a live table.
enum DroppedTables {
    /// The schema table's shape: five columns, no rowid alias.
    static let schemaShape = TableShape(name: "sqlite_master", root: 1, columns: ["type", "name", "tbl_name", "rootpage", "sql"],
                                        affinities: [.text, .text, .text, .integer, .text], rowidColumn: nil, entityNumbers: nil)

    static func find(_ map: PageMap, live: [TableShape]) -> [TableShape] {
        var known = Set(live.map { $0.name.uppercased() })
        var found: [TableShape] = []
        for number in 1...map.pageCount where map.owners[number] == .schema {
            let records: [[StoredValue]] = map.withPage(UInt32(number)) { bytes in
                guard let leaf = BTreePage(bytes, pageNumber: UInt32(number), usableSize: map.usableSize), leaf.kind == .tableLeaf else { return [] }
                var records: [[StoredValue]] = []
                CarvedRecords.freeSpace(bytes, leaf: leaf, shape: schemaShape, usable: map.usableSize) { cell, _ in records.append(cell.values) }
                return records
            } ?? []
            for values in records {
                guard values.count == 5, case .text("table") = values[0], case .text(let name) = values[1],
                      case .integer(let root) = values[3], root > 1, root <= Int64(map.pageCount), case .text(let sql) = values[4],
                      !known.contains(name.uppercased()), let shape = shape(name: name, root: UInt32(root), sql: sql) else { continue }
                known.insert(name.uppercased())
                found.append(shape)
            }
        }
        return found
    }

    /// The shape a `CREATE TABLE` declares, read by SQLite from an empty in-memory database;
    /// nil for anything else: one statement only, a table's, with no query in it (the bytes
    /// are user input, and `CREATE TABLE … AS SELECT` would run one, a recursive one forever).
    static func shape(name: String, root: UInt32, sql: String) -> TableShape? {
        guard sql.range(of: "CREATE TABLE", options: [.caseInsensitive, .anchored]) != nil, sql.count <= 100_000,
              sql.range(of: "SELECT", options: .caseInsensitive) == nil, sql.range(of: "VALUES", options: .caseInsensitive) == nil,
              let queue = try? DatabaseQueue() else { return nil }
        return try? queue.write { db -> TableShape? in
            let statement = try db.makeStatement(sql: sql)
            try statement.execute()
            guard let table = try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") else { return nil }
            return try TableShape.read(db, mapping: nil).first { $0.name == table }.map {
                TableShape(name: name, root: root, columns: $0.columns, affinities: $0.affinities, rowidColumn: $0.rowidColumn, entityNumbers: nil)
            }
        }
    }
}

import Foundation
import GRDB

/// What a table's rows look like, from its declaration: enough to tell a row of it from other
/// bytes, and to rebuild a row whose first bytes were overwritten.
///
/// SQLite stores a value by its column's affinity (sqlite.org/datatype3.html, "3.1"): a column
/// whose declared type contains INT holds integers (and NULL), one with CHAR, CLOB or TEXT text,
/// one with REAL, FLOA or DOUB reals (integers too, when a value is whole), one with BLOB or no
/// type anything. A column that is the rowid's alias (`INTEGER PRIMARY KEY`, as Core Data's
/// `Z_PK`) is stored as NULL in the record.
struct TableShape: Sendable {
    enum Affinity: Sendable { case integer, text, real, numeric, blob }

    let name: String
    let root: UInt32
    let columns: [String]
    let affinities: [Affinity]
    /// The column that is the rowid's alias, if any.
    let rowidColumn: Int?
    /// For a Core Data entity table: the entity numbers its rows may carry in `Z_ENT` (column 1).
    let entityNumbers: Set<Int64>?
    /// `CellCarver`'s guesses at the serial types a freeblock header overwrote, by how many
    /// type bytes it overwrote (0 to 3): worked out once, not once a freed cell.
    private(set) var lostTypeGuesses: [[[UInt64]]]

    init(name: String, root: UInt32, columns: [String], affinities: [Affinity], rowidColumn: Int?, entityNumbers: Set<Int64>?) {
        self.name = name
        self.root = root
        self.columns = columns
        self.affinities = affinities
        self.rowidColumn = rowidColumn
        self.entityNumbers = entityNumbers
        lostTypeGuesses = []
        lostTypeGuesses = (0...3).map { CellCarver.typeGuesses(shape: self, lostTypeBytes: $0) }
    }

    /// Every rowid table of the store's schema, as the connection reads it.
    static func read(_ db: Database, mapping: StoreMapping?) throws -> [TableShape] {
        let tables = try Row.fetchAll(db, sql: "SELECT name, rootpage, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        var shapes: [TableShape] = []
        for table in tables {
            guard let name: String = table.lenient("name"), let root: Int64 = table.lenient("rootpage"), root > 0, root <= Int64(UInt32.max) else { continue }
            let sql: String = table.lenient("sql") ?? ""
            if sql.range(of: "WITHOUT ROWID", options: .caseInsensitive) != nil || sql.uppercased().hasPrefix("CREATE VIRTUAL") { continue }
            let info = try Row.fetchAll(db, sql: "PRAGMA table_info(\(SQL.identifier(name)))")
            var columns: [String] = [], affinities: [Affinity] = []
            var keyColumns: [(Int, String)] = []
            for (index, column) in info.enumerated() {
                let type: String = column.lenient("type") ?? ""
                columns.append(column.lenient("name") ?? "")
                affinities.append(affinity(of: type))
                let pk: Int64 = column.lenient("pk") ?? 0
                if pk > 0 { keyColumns.append((index, type)) }
            }
            let rowidColumn = keyColumns.count == 1 && keyColumns[0].1.uppercased() == "INTEGER" ? keyColumns[0].0 : nil
            let entities = (mapping?.entities ?? []).filter { $0.table.caseInsensitiveCompare(name) == .orderedSame }.flatMap(\.entityIDs)
            let isEntityTable = !entities.isEmpty && columns.count >= 3 && columns[1] == "Z_ENT" && columns[2] == "Z_OPT"
            shapes.append(TableShape(name: name, root: UInt32(root), columns: columns, affinities: affinities, rowidColumn: rowidColumn,
                                     entityNumbers: isEntityTable ? Set(entities.map(Int64.init)) : nil))
        }
        return shapes
    }

    /// The affinity of a declared type (datatype3.html, "3.1", its rules in order).
    static func affinity(of declared: String) -> Affinity {
        let type = declared.uppercased()
        if type.contains("INT") { return .integer }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .text }
        if type.contains("BLOB") || type.isEmpty { return .blob }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return .real }
        return .numeric
    }

    /// Whether a serial type is one this column's values are stored as. Strict on purpose: a
    /// carved record must look like the table's rows, or bytes of another kind pass for one.
    func accepts(_ type: UInt64, column: Int) -> Bool {
        if column == rowidColumn { return type == 0 }
        guard column < affinities.count else { return false }
        switch affinities[column] {
        case .integer: return type <= 6 || type == 8 || type == 9 || type == 7
        case .real: return type <= 9 && type != 10
        case .text: return type == 0 || (type >= 13 && type % 2 == 1)
        case .numeric: return type <= 9 || (type >= 13 && type % 2 == 1)
        case .blob: return type != 10 && type != 11
        }
    }

    /// Whether decoded values could be a row of this table: a Core Data row's `Z_ENT` names an
    /// entity of the table, and its `Z_OPT` is a version (at least 1).
    func admits(_ values: [StoredValue]) -> Bool {
        guard let entityNumbers else { return true }
        guard values.count > 2, case .integer(let entity) = values[1], entityNumbers.contains(entity),
              case .integer(let version) = values[2], version >= 1 else { return false }
        return true
    }
}

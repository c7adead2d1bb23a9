import Foundation
import ManagedStore
import XCTest

/// The schema an open reads: every table's columns and foreign keys, read for all tables at
/// once through the PRAGMAs' table-valued forms, must be exactly what the PRAGMAs say table
/// by table, in their order, for the names hand-edited stores have.
final class SchemaSnapshotTests: XCTestCase {
    func testEveryTableIsWhatItsPragmasSay() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let path = folder.appendingPathComponent("odd.sqlite").path
        try SQLiteShell.run(path, #"""
            CREATE TABLE "Odd ""Name""" (Z_PK INTEGER PRIMARY KEY, "col one" TEXT NOT NULL, b);
            CREATE TABLE other (x, y, PRIMARY KEY (x, y));
            CREATE TABLE child (Z_PK INTEGER PRIMARY KEY, a INTEGER, b INTEGER,
                                c INTEGER REFERENCES "Odd ""Name"""(Z_PK),
                                FOREIGN KEY (a, b) REFERENCES other(x, y));
            CREATE TABLE Ünïcode (x);
            CREATE INDEX childA ON child(a);
            CREATE VIRTUAL TABLE search USING fts4(body);
            """#)
        let schema = try PersistentStore(path: path).schema
        // fts4 keeps its rows in shadow tables of its own, `search_content` and others.
        XCTAssertEqual(schema.tables.map(\.name).filter { !$0.hasPrefix("search_") }, ["Odd \"Name\"", "child", "other", "search", "Ünïcode"])
        XCTAssertEqual(schema.tables.filter(\.isVirtual).map(\.name), ["search"])
        XCTAssertEqual(schema.table("search")?.columns.map(\.name), ["body"])
        XCTAssertEqual(schema.indexNames, ["childA", "sqlite_autoindex_other_1", "sqlite_autoindex_search_segdir_1"])
        for table in schema.tables {
            let literal = "'" + table.name.replacingOccurrences(of: "'", with: "''") + "'"
            let columns = try SQLiteShell.read(path, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(\(literal))")
            XCTAssertEqual(table.columns.map { "\($0.name)|\($0.declaredType)|\($0.notNull ? 1 : 0)|\($0.primaryKeyIndex)" }.joined(separator: "\n"),
                           columns, table.name)
            let keys = try SQLiteShell.read(path, "SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(\(literal))")
            XCTAssertEqual(table.foreignKeys.map { "\($0.column)|\($0.table)|\($0.toColumn ?? "")" }.joined(separator: "\n"),
                           keys, table.name)
        }
        XCTAssertEqual(schema.table("child")?.foreignKeys.count, 3)
    }

    /// SQLite takes `CHILD` for `child` and `ÜNïCODE` for `Ünïcode`, but not `ÜNÏCODE`: it
    /// ignores the case of ASCII letters only, and a lookup must find what SQLite would.
    func testNamesMatchIgnoringTheCaseOfASCIILettersOnly() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let path = folder.appendingPathComponent("names.sqlite").path
        try SQLiteShell.run(path, "CREATE TABLE child (Z_PK INTEGER PRIMARY KEY, Name TEXT); CREATE TABLE Ünïcode (x);")
        let schema = try PersistentStore(path: path).schema
        XCTAssertEqual(schema.table("CHILD")?.name, "child")
        XCTAssertEqual(schema.table("child")?.column("NAME")?.name, "Name")
        XCTAssertEqual(schema.table("ÜNïCODE")?.name, "Ünïcode")
        XCTAssertNil(schema.table("ÜNÏCODE"))
        XCTAssertNotNil(try? SQLiteShell.read(path, "SELECT * FROM ÜNïCODE"), "SQLite finds it")
        XCTAssertNil(try? SQLiteShell.read(path, "SELECT * FROM ÜNÏCODE"), "SQLite does not find it")
    }
}

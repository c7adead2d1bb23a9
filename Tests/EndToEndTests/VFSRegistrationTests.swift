import Foundation
import GRDB
import GRDBSQLite
import ManagedStore
import XCTest

/// The core's VFS serves the store's own connections and nothing else: it is registered by
/// name, so a program linking ManagedStore beside SQLite work of its own keeps SQLite's
/// default VFS.
final class VFSRegistrationTests: ExampleStoreTestCase {
    func testStoreConnectionsUseTheVFSAndTheDefaultStaysTheSystems() throws {
        let opened = try PersistentStore(path: store, options: .init(readonly: true))
        defer { opened.close() }
        let name = try opened.reader.read(Self.vfsName)
        // A shim names itself in front of the VFS it stands on.
        XCTAssertEqual(name?.split(separator: "/").first.map(String.init), WindowedMappingVFS.name, name ?? "no name")
        let fallback = try XCTUnwrap(sqlite3_vfs_find(nil))
        XCTAssertNotEqual(String(cString: fallback.pointee.zName), WindowedMappingVFS.name)
        // A connection of the program's own, opened after the store's, gets the default.
        let own = try DatabaseQueue(path: folder.appendingPathComponent("own.sqlite").path)
        let ownName = try own.read(Self.vfsName)
        XCTAssertFalse((ownName ?? "").hasPrefix(WindowedMappingVFS.name), ownName ?? "no name")
        XCTAssertNotNil(ownName)
    }

    /// The VFS a connection's main file is opened through, as SQLite names it.
    static func vfsName(_ db: Database) -> String? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_VFSNAME, &pointer) == SQLITE_OK, let pointer else { return nil }
        defer { sqlite3_free(pointer) }
        return String(cString: pointer)
    }
}

import Foundation
import GRDB
import ManagedStore
import XCTest

/// A process that opens a store twice (the web view's pages and its live feed, the MCP
/// server's tools, a REPL's `diff`) keeps SQLite's locks on it. Closing any descriptor of a
/// file drops all of a process's POSIX locks on it; a header read that did so let the app's
/// last connection take its exclusive lock, checkpoint and delete the -wal and -shm under the
/// open connection, which from then on never saw another commit.
final class SharedLockTests: ExampleStoreTestCase {
    func testAStoreOpenedTwiceInOneProcessStillSeesEveryCommit() throws {
        let first = try PersistentStore(path: store, options: .init(readonly: true))
        defer { first.close() }
        XCTAssertNotNil(try age(first))
        // A second open of the same file in this process, closed again.
        try PersistentStore(path: store, options: .init(readonly: true)).close()
        for age in [99, 98] {
            let saved = try CLI.run([store, "-c", "update Person/p3 age=\(age)", "-c", "save"])
            XCTAssertEqual(saved.status, 0, saved.stderr)
            // The app's connection was not the last: it left the -wal to the open reader.
            XCTAssertTrue(FileManager.default.fileExists(atPath: store + "-wal"), "the -wal was deleted under an open connection")
            XCTAssertEqual(try self.age(first), age)
        }
    }

    private func age(_ opened: PersistentStore) throws -> Int? {
        try opened.reader.read { try Int.fetchOne($0, sql: "SELECT ZAGE FROM ZPERSON WHERE Z_PK = 3") }
    }
}

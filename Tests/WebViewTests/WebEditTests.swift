import Foundation
import Inspector
import ManagedStore
import TestSupport
import XCTest
@testable import WebView

/// Edits with `--write`: an edit goes into the page's context, Save writes what the REPL's
/// `update` and `save` write (the row's bytes and the history's rows), after a snapshot;
/// a check that fails shows on its field; Discard leaves the store as it was.
final class WebEditTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdinspect-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Snapshots go into the test's own library.
        setenv("XDG_DATA_HOME", folder.appendingPathComponent("data").path, 1)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A store with persistent history and three people.
    func historyStore() throws -> URL {
        let store = folder.appendingPathComponent("Tracked-\(UUID().uuidString).sqlite")
        var options = StoreCreator.Options()
        options.persistentHistory = true
        options.uuid = "5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F"
        try StoreCreator.create(at: store.path, model: try XcdatamodelReader.model(atPath: SiteHarness.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path),
                                options: options)
        let harness = try SessionHarness(copying: store)
        for (i, name) in ["ann", "bo", "cy"].enumerated() {
            try harness.run("insert Person name=\(name) id=E621E1F8-C36C-495A-93FC-0C247A3E6E5\(i) age=\(30 + i)")
        }
        try harness.run("save")
        // The saved rows are in the copy's -wal until a checkpoint: the copy is taken whole.
        try FileManager.default.removeItem(at: store)
        let saved = harness.folder.appendingPathComponent(store.lastPathComponent)
        try SiteHarness.sqlite(saved.path, "PRAGMA wal_checkpoint(TRUNCATE);")
        try FileManager.default.copyItem(at: saved, to: store)
        return store
    }

    /// The rows the comparison reads: the person's row, and the history's, timestamps aside.
    static func rows(_ path: String) throws -> String {
        try SiteHarness.sqlite(path, """
            SELECT hex(Z_PK), Z_ENT, Z_OPT, quote(ZNAME), quote(ZAGE), hex(ZID) FROM ZPERSON ORDER BY Z_PK;
            SELECT Z_PK, quote(ZAUTHOR), quote(ZCONTEXTNAME), quote(ZBUNDLEID), quote(ZPROCESSID) FROM ATRANSACTION ORDER BY Z_PK;
            SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, hex(ZCOLUMNS) FROM ACHANGE ORDER BY Z_PK;
            SELECT Z_PK, ZNAME FROM ATRANSACTIONSTRING ORDER BY Z_PK;
            """)
    }

    func testAnEditAndSaveWriteWhatTheREPLsUpdateAndSaveWrite() throws {
        let store = try historyStore()
        let site = try SiteHarness(copying: store, writes: true)
        XCTAssertEqual(site.post("/-/edit", [("object", "Person/p2"), ("key", "age"), ("value", "77")]).status, 303)
        XCTAssertEqual(site.post("/-/edit", [("object", "Person/p2"), ("key", "name"), ("value", "\"zed\"")]).status, 303)
        // Pending: listed, on the object's page, nothing in the store yet.
        XCTAssertEqual(site.site.pendingChanges, 1)
        let pending = SiteHarness.text(site.get("/Person/p2"))
        XCTAssertTrue(pending.contains("pending: <code>77</code>"), pending)
        XCTAssertTrue(SiteHarness.text(site.get("/changes")).contains("age,name"))
        XCTAssertEqual(try SiteHarness.sqlite(site.path, "SELECT ZAGE FROM ZPERSON WHERE Z_PK = 2"), "31\n")

        let saved = site.post("/-/save", [])
        XCTAssertEqual(saved.status, 303)
        let outcome = SiteHarness.text(site.get("/changes"))
        XCTAssertTrue(outcome.contains("Saved"), outcome)
        XCTAssertTrue(outcome.contains("before-browse-"), "a snapshot was taken first: \(outcome)")
        XCTAssertEqual(site.site.pendingChanges, 0)

        // The REPL, on another copy, with the web view's author and bundle.
        let repl = try SessionHarness(copying: store)
        for line in ["context set author cdinspect-browse", "context set bundle cdinspect-browse", "update Person/p2 age=77 name=\"zed\"", "save"] {
            try repl.run(line)
        }
        XCTAssertEqual(try Self.rows(site.path), try Self.rows(repl.folder.appendingPathComponent(store.lastPathComponent).path))
        XCTAssertTrue(try SiteHarness.sqlite(site.path, "SELECT group_concat(ZNAME) FROM ATRANSACTIONSTRING").contains("cdinspect-browse"))
        // The snapshot holds the store as it was.
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("data/cdinspect/snapshots/5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F").path)
        XCTAssertEqual(snapshots.filter { $0.hasPrefix("before-browse-") }.count, 1)
    }

    func testAFailedCheckShowsOnItsFieldAndDiscardLeavesTheStoreAsItWas() throws {
        let store = try historyStore()
        let site = try SiteHarness(copying: store, writes: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: site.path))
        XCTAssertEqual(site.post("/-/edit", [("object", "Person/p1"), ("key", "name"), ("value", "nil")]).status, 303)
        XCTAssertEqual(site.post("/-/edit", [("object", "Person/p1"), ("key", "age"), ("value", "\"old\"")]).status, 303)
        XCTAssertTrue(SiteHarness.text(site.get("/Person/p1")).contains("<div class=\"field-error\">Person.age: expects an integer"),
                      SiteHarness.text(site.get("/Person/p1")))
        XCTAssertEqual(site.post("/-/save", []).status, 303)
        let changes = SiteHarness.text(site.get("/changes"))
        XCTAssertTrue(changes.contains("Not saved: 1 check(s) failed"), changes)
        XCTAssertTrue(SiteHarness.text(site.get("/Person/p1")).contains("<div class=\"field-error\">name is required</div>"))
        XCTAssertEqual(site.post("/-/discard", []).status, 303)
        XCTAssertEqual(site.site.pendingChanges, 0)
        XCTAssertTrue(SiteHarness.text(site.get("/changes")).contains("discarded"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: site.path)), before)
        XCTAssertEqual(FileManager.default.contents(atPath: site.path + "-wal") ?? Data(), Data())
    }

    /// Another process with the store open: Save asks first, and saves once acknowledged.
    func testSavingUnderAnotherProcessNeedsTheGuardAcknowledged() throws {
        let store = try historyStore()
        let site = try SiteHarness(copying: store, writes: true)
        // The sqlite3 shell with the store open, reading from a pipe this test holds open.
        let input = try ChildProcess.makePipe()
        let other = try ChildProcess(["/usr/bin/env", "sqlite3", site.path], environment: ProcessInfo.processInfo.environment,
                                     files: [:], descriptors: [0: input.read])
        close(input.read)
        _ = Array("SELECT count(*) FROM ZPERSON;\n".utf8).withUnsafeBytes { write(input.write, $0.baseAddress, $0.count) }
        defer {
            close(input.write)
            _ = other.wait()
        }
        // Until the shell has the store open, however long a loaded machine takes to start it.
        let deadline = Date().addingTimeInterval(20)
        while !ProcessUse.others(using: [site.path]).contains(where: { $0.pid == other.pid }), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(site.post("/-/edit", [("object", "Person/p1"), ("key", "age"), ("value", "1")]).status, 303)
        let asked = site.post("/-/save", [])
        XCTAssertEqual(asked.status, 409)
        XCTAssertTrue(SiteHarness.text(asked).contains("has the store open"), SiteHarness.text(asked))
        XCTAssertEqual(site.post("/-/acknowledge", []).status, 400)
        XCTAssertEqual(site.post("/-/acknowledge", [("understood", "yes")]).status, 303)
        XCTAssertEqual(site.post("/-/save", []).status, 303)
        XCTAssertEqual(try SiteHarness.sqlite(site.path, "SELECT ZAGE FROM ZPERSON WHERE Z_PK = 1"), "1\n")
    }

    /// The grid's requests (a cell set, a new object with its values, a delete once its rules
    /// were shown), saved once, write what the REPL's `update`, `insert`, `delete` and `save`
    /// write: the rows, their versions and the history's rows.
    func testTheGridsEditsWriteWhatTheREPLWrites() throws {
        let store = try historyStore()
        let site = try SiteHarness(copying: store, writes: true)
        let set = { (object: String, key: String, value: String) -> String in
            SiteHarness.text(site.post("/-/edit", [("object", object), ("key", key), ("value", value), ("reply", "json")]))
        }
        XCTAssertTrue(set("Person/p2", "age", "40").contains(#""ok": true"#))
        XCTAssertTrue(set("Person/p2", "age", "\"old\"").contains(#""ok": false"#), "a refused value is answered, not staged")
        XCTAssertEqual(site.post("/-/insert", [("entity", "Person")]).status, 303)
        let grid = SiteHarness.text(site.get("/Person"))
        let fresh = try XCTUnwrap(grid.range(of: #"data-id="Person/t[0-9]+""#, options: .regularExpression).map { String(grid[$0].dropFirst(9).dropLast()) },
                                  "the new person is listed above the grid")
        XCTAssertTrue(set(fresh, "name", "\"dee\"").contains(#""ok": true"#))
        XCTAssertTrue(set(fresh, "id", "E621E1F8-C36C-495A-93FC-0C247A3E6E59").contains(#""ok": true"#))
        let asked = site.post("/-/delete", [("object", "Person/p3"), ("back", "/Person")])
        XCTAssertEqual(asked.status, 200)
        XCTAssertTrue(SiteHarness.text(asked).contains("Delete 1 object?"), SiteHarness.text(asked))
        XCTAssertEqual(site.site.pendingChanges, 2, "nothing deleted before it is confirmed")
        XCTAssertEqual(site.post("/-/delete", [("object", "Person/p3"), ("back", "/Person"), ("confirm", "yes")]).status, 303)
        XCTAssertTrue(SiteHarness.text(site.get("/Person")).contains(#"data-id="Person/p3" class="deleted""#))
        XCTAssertEqual(site.post("/-/save", []).status, 303)
        XCTAssertTrue(SiteHarness.text(site.get("/changes")).contains("Saved"))

        let repl = try SessionHarness(copying: store)
        for line in ["context set author cdinspect-browse", "context set bundle cdinspect-browse", "update Person/p2 age=40",
                     "insert Person name=\"dee\" id=E621E1F8-C36C-495A-93FC-0C247A3E6E59", "delete Person/p3", "save"] {
            try repl.run(line)
        }
        XCTAssertEqual(try Self.rows(site.path), try Self.rows(repl.folder.appendingPathComponent(store.lastPathComponent).path))
    }

    /// Another process commits the object the page changed: Save is refused as the merge
    /// policy (error, the default) refuses it, naming the object and the property, and the
    /// edit stays pending; nothing is written over the other process's value.
    func testAConflictWithAnotherProcesssCommitIsShown() throws {
        let store = try historyStore()
        let site = try SiteHarness(copying: store, writes: true)
        XCTAssertEqual(site.post("/-/edit", [("object", "Person/p2"), ("key", "age"), ("value", "40")]).status, 303)
        _ = try SiteHarness.sqlite(site.path, "UPDATE ZPERSON SET ZAGE = 99, Z_OPT = Z_OPT + 1 WHERE Z_PK = 2;")
        XCTAssertEqual(site.post("/-/save", []).status, 303)
        let outcome = SiteHarness.text(site.get("/changes"))
        XCTAssertTrue(outcome.contains("Not saved: save failed with 1 merge conflict") && outcome.contains("Person/p2"), outcome)
        XCTAssertEqual(site.site.pendingChanges, 1)
        XCTAssertEqual(try SiteHarness.sqlite(site.path, "SELECT ZAGE FROM ZPERSON WHERE Z_PK = 2"), "99\n")
    }
}

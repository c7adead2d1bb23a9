import Foundation
import XCTest

/// `cdinspect stores` on a fake simulator tree, and STORE given as an app's bundle
/// identifier or name.
final class StoresTests: XCTestCase {
    var root: URL!
    var expected: [String: (app: String, device: String)] = [:]

    func plist(_ value: [String: Any], at url: URL, binary: Bool) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: value, format: binary ? .binary : .xml, options: 0).write(to: url)
    }

    func device(_ udid: String, name: String, runtime: String) throws -> URL {
        let url = root.appendingPathComponent(udid)
        try plist(["UDID": udid, "name": name, "runtime": runtime, "deviceType": "com.apple.CoreSimulator.SimDeviceType.x"],
                  at: url.appendingPathComponent("device.plist"), binary: false)
        return url.appendingPathComponent("data/Containers")
    }

    func container(_ containers: URL, _ kind: String, _ uuid: String, bundleID: String) throws -> URL {
        let url = containers.appendingPathComponent("\(kind)/\(uuid)")
        try plist(["MCMMetadataIdentifier": bundleID, "MCMMetadataContentClass": 2],
                  at: url.appendingPathComponent(".com.apple.mobile_container_manager.metadata.plist"), binary: true)
        return url
    }

    /// A generated store moved to `folder/name`; with `wal`, a commit left in its `-wal`.
    func store(in folder: URL, _ name: String, history: Bool = false, wal: Bool = false) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let scratch = try Fixtures.temporaryDirectory(self)
        let made = try Fixtures.exampleStore(in: scratch, people: 3, history: history)
        let target = folder.appendingPathComponent(name)
        try FileManager.default.moveItem(at: made, to: target)
        if wal { try SQLiteShell.commitLeavingWAL(target.path, ["UPDATE ZPERSON SET ZAGE = 1 WHERE Z_PK = 1"]) }
        return target.path
    }

    override func setUpWithError() throws {
        root = try Fixtures.temporaryDirectory(self).appendingPathComponent("Devices")
        let phone = try device("1111-PHONE", name: "iPhone 15", runtime: "com.apple.CoreSimulator.SimRuntime.iOS-17-2")
        let pad = try device("2222-PAD", name: "iPad Air", runtime: "com.apple.CoreSimulator.SimRuntime.iOS-18-0")

        let notes = try container(phone, "Data/Application", "AAAA", bundleID: "com.example.Notes")
        expected[try store(in: notes.appendingPathComponent("Library/Application Support"), "Notes.sqlite", wal: true)] = ("com.example.Notes", "iPhone 15")
        let photos = try container(phone, "Data/Application", "BBBB", bundleID: "com.example.Photos")
        expected[try store(in: photos.appendingPathComponent("Documents"), "Library.sqlite", history: true)] = ("com.example.Photos", "iPhone 15")
        let group = try container(phone, "Shared/AppGroup", "CCCC", bundleID: "group.com.example.shared")
        expected[try store(in: group, "Shared.sqlite")] = ("group.com.example.shared", "iPhone 15")
        let padNotes = try container(pad, "Data/Application", "DDDD", bundleID: "com.example.Notes")
        expected[try store(in: padNotes.appendingPathComponent("Library/Application Support"), "Notes.sqlite")] = ("com.example.Notes", "iPad Air")

        // Decoys: a SQLite file that is not Core Data's, a text file named like a store, a store
        // inside an app bundle and one in Caches (neither folder is searched), an unreadable folder.
        try SQLiteShell.run(notes.appendingPathComponent("Library/plain.sqlite").path, "CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        try Data("not a database".utf8).write(to: notes.appendingPathComponent("Library/fake.sqlite"))
        _ = try store(in: phone.appendingPathComponent("Bundle/Application/EEEE/Notes.app"), "Seed.sqlite")
        _ = try store(in: notes.appendingPathComponent("Library/Caches"), "Cached.sqlite")
        let locked = notes.appendingPathComponent("Locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked.path)
        addTeardownBlock { [root] in
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path)
            _ = root
        }
    }

    /// Every file under the tree with its bytes, to prove `stores` changes and creates nothing.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        while let relative = enumerator?.nextObject() as? String {
            let path = root.appendingPathComponent(relative).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files[relative] = FileManager.default.contents(atPath: path) ?? Data()
        }
        return files
    }

    func testFindsExactlyTheStoresAndTouchesNothing() throws {
        let before = try snapshot()
        let r = try CLI.run(["stores", root.path, "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let found = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(Set(found.compactMap { $0["path"] as? String }), Set(expected.keys))
        for row in found {
            let path = try XCTUnwrap(row["path"] as? String)
            XCTAssertEqual(row["app"] as? String, expected[path]?.app, path)
            XCTAssertEqual(row["device"] as? String, expected[path]?.device, path)
            XCTAssertEqual(row["entities"] as? Int, 4, path)
            XCTAssertEqual(row["history"] as? Bool, path.hasSuffix("Library.sqlite"), path)
            XCTAssertEqual(row["cloudKit"] as? Bool, false, path)
            XCTAssertEqual(row["journalMode"] as? String, "wal", path)
        }
        XCTAssertEqual(found.first { ($0["app"] as? String) == "com.example.Photos" }?["runtime"] as? String, "iOS 17.2")
        // Newest first.
        let times = found.compactMap { $0["modified"] as? String }
        XCTAssertEqual(times, times.sorted(by: >))
        if geteuid() != 0 { XCTAssertTrue(r.stderr.contains("could not be read"), r.stderr) }

        let before2 = try snapshot()
        XCTAssertEqual(before.keys.sorted(), before2.keys.sorted(), "stores created or removed a file")
        XCTAssertTrue(before == before2, "stores changed a file's bytes")

        // --app by bundle identifier or name; the default root from the environment.
        let notes = try CLI.run(["stores", "--app", "Notes", "--format", "csv"], environment: ["CDINSPECT_SIMULATOR_ROOT": root.path])
        XCTAssertEqual(notes.status, 0, notes.stderr)
        XCTAssertEqual(notes.stdout.split(separator: "\n").count, 3, notes.stdout)
        XCTAssertTrue(try snapshot() == before)
    }

    /// A named pipe where a store's `-wal` would be does not hold the search: the search
    /// reads each candidate's newest first page from its `-wal`, and opening a pipe for
    /// reading waits for a writer.
    func testANamedPipeBesideAStoreDoesNotHoldTheSearch() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder)
        try? FileManager.default.removeItem(atPath: store.path + "-wal")
        XCTAssertEqual(mkfifo(store.path + "-wal", 0o644), 0)
        let r = try CLI.run(["stores", folder.path, "--format", "csv"], timeout: 20)
        XCTAssertFalse(r.signaled, "killed after 20 s: a hang")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains(store.path), r.stdout)
    }

    func testAnAppNameOpensItsStore() throws {
        let environment = ["CDINSPECT_SIMULATOR_ROOT": root.path]
        var r = try CLI.run(["com.example.Photos", "-c", "entities", "--format", "csv"], environment: environment)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("name,parent,abstract,table"), r.stdout)
        r = try CLI.run(["count", "shared", "Person"], environment: environment)
        XCTAssertEqual(r.stdout, "3\n", r.stderr)

        r = try CLI.run(["com.example.Notes", "-c", "entities"], environment: environment)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("'com.example.Notes' names 2 stores") && r.stderr.contains("iPad Air"), r.stderr)

        r = try CLI.run(["com.example.Nothing", "-c", "entities"], environment: environment)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "cdinspect: error: no file 'com.example.Nothing', and no store of an app 'com.example.Nothing' under \(root.path)\n")
    }

    func testNoFolderOnLinuxSaysWhatToGive() throws {
        #if os(Linux)
        let r = try CLI.run(["stores"], environment: ["CDINSPECT_SIMULATOR_ROOT": ""])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("give a folder to search"), r.stderr)
        #endif
    }
}

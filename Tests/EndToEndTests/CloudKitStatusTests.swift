import Foundation
import XCTest

/// `cloudkit status`, `why`, `check` and `events --follow` on mirrored stores built from the
/// reference's DDL: an app's own saves made through cdinspect (so history records them),
/// one object changed by plain SQL, one never exported, and export events that failed,
/// succeeded and never ended.
final class CloudKitStatusTests: XCTestCase {
    var folder: URL!
    var store: String!
    /// The history token the last export reached, and the token of the change after it.
    var exportedToken = 0, laterToken = 0
    /// Now, in reference-date seconds, when the events were written.
    var now = 0.0

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
        store = try Fixtures.exampleStore(in: folder, people: 10, history: true).path
    }

    func session(_ script: String) throws {
        let r = try CLI.run([store], stdin: script)
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func token() throws -> Int { Int(try SQLiteShell.read(store, "SELECT max(Z_PK) FROM ATRANSACTION")) ?? -1 }

    /// The scenario every status and why test reads. With `inWAL`, the mirroring tables
    /// and rows exist only in the -wal, as on a genuine store the app has not checkpointed.
    func mirror(inWAL: Bool) throws {
        try session("""
            context set author App
            update Person/p1 age=41
            save
            insert Person name="Exported" id=\(UUID().uuidString) age=30
            insert Person name="Raw" id=\(UUID().uuidString) age=31
            insert Person name="Never" id=\(UUID().uuidString) age=32
            save
            """)
        exportedToken = try token()
        try session("context set author App\nupdate Person/p11 age=50\nsave\n")
        laterToken = try token()
        XCTAssertEqual(laterToken, exportedToken + 1)
        // Changed behind Core Data's back: the row's version moves, history hears nothing.
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZAGE = 99, Z_OPT = Z_OPT + 1 WHERE Z_PK = 12; PRAGMA wal_checkpoint(TRUNCATE);")
        now = Date().timeIntervalSinceReferenceDate
        let start = now
        let n = { (offset: Double) in String(start + offset) }
        let statements = MirroredStore.current + MirroredStore.primaryKeyRows(MirroredStore.current) + MirroredStore.defaultZone + [
            "INSERT INTO ANSCKRECORDMETADATA (ZENTITYID, ZENTITYPK, ZCKRECORDNAME, ZRECORDZONE, ZNEEDSUPLOAD, ZNEEDSCLOUDDELETE, ZNEEDSLOCALDELETE, ZLASTEXPORTEDTRANSACTIONNUMBER) "
                + "SELECT Z_ENT, Z_PK, 'CD_Person_' || Z_PK, 1, Z_PK = 11, 0, 0, \(exportedToken) FROM ZPERSON WHERE Z_PK != 13",
            "INSERT INTO ANSCKRECORDMETADATA (ZENTITYID, ZENTITYPK, ZCKRECORDNAME, ZRECORDZONE, ZNEEDSUPLOAD, ZNEEDSCLOUDDELETE, ZNEEDSLOCALDELETE) "
                + "SELECT Z_ENT, Z_PK, 'CD_Car_' || Z_PK, 1, 0, 0, Z_PK = 1 FROM ZCAR",
            "INSERT INTO ANSCKRECORDMETADATA (ZENTITYID, ZENTITYPK, ZCKRECORDNAME, ZRECORDZONE) SELECT Z_ENT, Z_PK, 'CD_Tag_' || Z_PK, 1 FROM ZTAG",
            // A person deleted here, waiting for its record to be deleted in iCloud.
            "INSERT INTO ANSCKRECORDMETADATA (ZENTITYID, ZENTITYPK, ZCKRECORDNAME, ZRECORDZONE, ZNEEDSCLOUDDELETE) VALUES (3, 999, 'CD_Person_999', 1, 1)",
            "INSERT INTO ANSCKMETADATAENTRY (ZKEY, ZINTEGERVALUE) VALUES ('PFCloudKitMetadataFrameworkVersionKey', 1335)",
            "INSERT INTO ANSCKMETADATAENTRY (ZKEY, ZBOOLVALUENUM) VALUES ('NSCloudKitMirroringDelegateCheckedCKIdentityDefaultsKey', 1)",
            "INSERT INTO ANSCKMETADATAENTRY (ZKEY, ZTRANSFORMEDVALUE) VALUES ('NSCloudKitMirroringDelegateLastHistoryTokenKey', "
                + MirroredStore.archivedToken(Int64(exportedToken), storeUUID: Fixtures.exampleUUID) + ")",
            "INSERT INTO ANSCKMIRROREDRELATIONSHIP (ZCKRECORDID, ZRECORDZONE, ZCDENTITYNAME, ZRELATIONSHIPNAME, ZRECORDNAME, ZRELATEDENTITYNAME, ZRELATEDRECORDNAME, ZISUPLOADED, ZISPENDING, ZNEEDSDELETE) "
                + "VALUES ('CDMR_1', 1, 'Person', 'tags', 'CD_Person_1', 'Tag', 'CD_Tag_1', 1, 0, 0)",
            "INSERT INTO ANSCKEVENT (Z_PK, ZCLOUDKITEVENTTYPE, ZSTARTEDAT, ZENDEDAT, ZSUCCEEDED, ZERRORDOMAIN, ZERRORCODE, ZCOUNTAFFECTEDOBJECTS) VALUES "
                + "(1, 0, \(n(-1000)), \(n(-999)), 1, NULL, 0, NULL), (2, 1, \(n(-900)), \(n(-899)), 1, NULL, 0, 0), "
                + "(3, 2, \(n(-800)), \(n(-799)), 1, NULL, 0, 13), (4, 2, \(n(100)), \(n(101)), 0, 'CKErrorDomain', 2, 1), "
                + "(5, 2, \(n(200)), \(n(202)), 0, 'CKErrorDomain', 2, 1), (6, 2, \(n(300)), NULL, 0, NULL, 0, 1), "
                + "(7, 1, \(n(150)), \(n(151)), 0, 'NSCocoaErrorDomain', 134407, NULL), (8, 9, \(n(50)), \(n(51)), 0, 'MyDomain', 77, NULL)",
        ]
        if inWAL {
            try SQLiteShell.commitLeavingWAL(store, statements)
            // The main file alone has no mirroring table: they are in the -wal only.
            let mainOnly = folder.appendingPathComponent("main-only.sqlite").path
            try FileManager.default.copyItem(atPath: store, toPath: mainOnly)
            XCTAssertEqual(try SQLiteShell.read(mainOnly, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'ANSCK%'"), "0")
        } else {
            try SQLiteShell.run(store, statements.joined(separator: ";\n") + ";")
        }
    }

    func json(_ arguments: [String], of path: String? = nil) throws -> [String: Any] {
        try XCTUnwrap(CLI.json(["cloudkit", path ?? store] + arguments + ["--format", "json"]) as? [String: Any])
    }

    func testStatusAnswersWhyAStoreDidNotSync() throws {
        try mirror(inWAL: true)
        let status = try json([])
        XCTAssertEqual(status["lastExportedToken"] as? Int, exportedToken)
        XCTAssertEqual((status["lastSuccessfulExport"] as? [String: Any])?["event"] as? Int, 3)
        XCTAssertEqual((status["lastExport"] as? [String: Any])?["event"] as? Int, 6)
        XCTAssertEqual((status["lastSuccessfulImport"] as? [String: Any])?["event"] as? Int, 2)
        let backlog = try XCTUnwrap(status["notExported"] as? [String: Any])
        XCTAssertEqual(backlog["changes"] as? Int, 1)
        let groups = try XCTUnwrap(backlog["byEntityAndAuthor"] as? [[String: Any]])
        XCTAssertEqual(groups.map { "\($0["entity"]!) \($0["author"]!) \($0["transactions"]!) \($0["changes"]!)" }, ["Person App 1 1"])
        XCTAssertEqual(status["pendingUploads"] as? Int, 1)
        XCTAssertEqual(status["pendingCloudDeletes"] as? Int, 1)
        XCTAssertEqual(status["pendingLocalDeletes"] as? Int, 1)
        let never = try XCTUnwrap(status["neverExported"] as? [[String: Any]])
        XCTAssertEqual(never.map { $0["entity"] as? String ?? "" }, ["Person"])
        XCTAssertEqual(never.first?["examples"] as? [String], [Fixtures.uri("Person/p13")])
        XCTAssertEqual((status["unfinishedEvents"] as? [[String: Any]])?.map { $0["event"] as? Int ?? 0 }, [6])
        let failed = try XCTUnwrap(status["failedEvents"] as? [[String: Any]])
        XCTAssertEqual(failed.map { $0["event"] as? Int ?? 0 }, [5, 7, 4, 8], "newest first")
        XCTAssertEqual(failed[0]["error"] as? String, "partialFailure")
        XCTAssertTrue((failed[0]["meaning"] as? String ?? "").contains("production schema"), "\(failed[0])")
        XCTAssertEqual(failed[1]["error"] as? String, "(request cancelled)")
        // An event type and an error code no table names print as their numbers.
        XCTAssertEqual(failed[3]["type"] as? String, "#9")
        XCTAssertEqual(failed[3]["errorDomain"] as? String, "MyDomain")
        XCTAssertEqual(failed[3]["errorCode"] as? Int, 77)
        XCTAssertTrue(failed[3]["error"] is NSNull)
        let unrecorded = try XCTUnwrap(status["unrecordedSaves"] as? [[String: Any]])
        XCTAssertEqual(unrecorded.map { "\($0["entity"]!) \($0["count"]!)" }, ["Person 1"])
        XCTAssertEqual(unrecorded.first?["examples"] as? [String], [Fixtures.uri("Person/p12")])
        // p1…p10, ten cars and four tags were created before history recorded inserts.
        XCTAssertEqual(status["unjudgedObjects"] as? Int, 24)
        let verdict = try XCTUnwrap(status["verdict"] as? String)
        for part in ["the last export failed with CKErrorDomain 2 (partialFailure)", "1 object(s) were saved without a history record",
                     "1 object(s) have never been exported", "1 change(s) wait for the next export", "1 upload(s) and 1 cloud delete(s) are pending"] {
            XCTAssertTrue(verdict.contains(part), "\(part) in \(verdict)")
        }

        // The same answer after a checkpoint moves the tables into the main file.
        let copy = folder.appendingPathComponent("checkpointed.sqlite").path
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: store + suffix, toPath: copy + suffix) }
        try SQLiteShell.run(copy, "PRAGMA wal_checkpoint(TRUNCATE);")
        var after = try json([], of: copy)
        var before = status
        before["path"] = nil
        after["path"] = nil
        XCTAssertEqual(NSDictionary(dictionary: before), NSDictionary(dictionary: after))

        // The table form says the same in words, the verdict last.
        let text = try CLI.run(["cloudkit", store])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("export event 5 started"), text.stdout)
        XCTAssertTrue(text.stdout.contains("failed with CKErrorDomain 2 (partialFailure)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Person by App: 1 in 1 transaction(s)"), text.stdout)
        XCTAssertTrue(text.stdout.split(separator: "\n").last?.hasPrefix("verdict") == true, text.stdout)
    }

    func testWhyTellsEachObjectsStory() throws {
        try mirror(inWAL: false)
        // Changed after the last export, which then failed twice.
        var why = try json(["why", "Person/p11"])
        XCTAssertEqual(why["recordName"] as? String, "CD_Person_11")
        XCTAssertEqual(why["zone"] as? String, "com.apple.coredata.cloudkit.zone")
        XCTAssertEqual(why["needsUpload"] as? Bool, true)
        let changes = try XCTUnwrap(why["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.map { "\($0["type"]!) \($0["token"]!) \($0["exported"]!)" },
                       ["insert \(exportedToken) 1", "update \(laterToken) 0"])
        XCTAssertEqual(changes[1]["author"] as? String, "App")
        XCTAssertEqual(changes[1]["properties"] as? [String], ["age"])
        XCTAssertEqual((why["exportsSince"] as? [[String: Any]])?.map { $0["event"] as? Int ?? 0 }, [4, 5, 6])
        XCTAssertEqual(why["verdict"] as? String,
                       "changed at token \(laterToken), after the last export (\(exportedToken)); record CD_Person_11 in "
                       + "com.apple.coredata.cloudkit.zone, waits for upload; 3 export(s) since, 2 failed with CKErrorDomain 2 (partialFailure)")
        // Changed before the last export: nothing waits.
        why = try json(["why", Fixtures.uri("Person/p1")])
        XCTAssertTrue((why["verdict"] as? String ?? "").hasPrefix("changed at token 1, before the last export (\(exportedToken))"), "\(why)")
        // Never exported.
        why = try json(["why", "Person/p13"])
        XCTAssertEqual(why["hasRecordMetadata"] as? Bool, false)
        XCTAssertTrue((why["verdict"] as? String ?? "").contains("no record metadata: never exported"), "\(why)")
        // Changed by plain SQL: a save history never saw.
        why = try json(["why", "Person/p12"])
        XCTAssertEqual(why["unrecordedSaves"] as? Int, 1)
        XCTAssertTrue((why["verdict"] as? String ?? "").contains("saved 1 more time(s) than history records"), "\(why)")
        // Deleted here, its record waiting to be deleted in iCloud.
        why = try json(["why", "Person/p999"])
        XCTAssertEqual(why["exists"] as? Bool, false)
        XCTAssertEqual(why["needsCloudDelete"] as? Bool, true)
        XCTAssertTrue((why["verdict"] as? String ?? "").contains("waits to be deleted in iCloud"), "\(why)")
        // Waiting to be deleted here after a delete in iCloud; older than history.
        why = try json(["why", "Car/p1"])
        XCTAssertTrue((why["verdict"] as? String ?? "").hasPrefix("history holds no change to it"), "\(why)")
        XCTAssertTrue((why["verdict"] as? String ?? "").contains("waits to be deleted here after a delete in iCloud"), "\(why)")
        // The table form ends with the verdict.
        let text = try CLI.run(["cloudkit", store, "why", "Person/p11"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.hasSuffix("2 failed with CKErrorDomain 2 (partialFailure)\n"), text.stdout)
        // Bad objects are errors that say what is wrong.
        for (target, words) in [("Persn/p1", "Person"), ("Person/x", "Person/x"), ("", "needs an object")] {
            let r = try CLI.run(["cloudkit", store, "why"] + (target.isEmpty ? [] : [target]))
            XCTAssertNotEqual(r.status, 0)
            XCTAssertTrue(r.stderr.contains(words), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }

    func testTheOtherViews() throws {
        try mirror(inWAL: false)
        let zones = try XCTUnwrap(CLI.json(["cloudkit", store, "zones", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(zones.first?["scope"] as? Int, 2, "the scope of the zone's database row")
        let objects = try XCTUnwrap(CLI.json(["cloudkit", store, "objects", "Car", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(objects.first?["needsLocalDelete"] as? Bool, true)
        let metadata = try XCTUnwrap(CLI.json(["cloudkit", store, "metadata", "--format", "json"]) as? [[String: Any]])
        let values = Dictionary(uniqueKeysWithValues: metadata.map { ($0["key"] as? String ?? "", $0["value"] as Any) })
        XCTAssertEqual(values["PFCloudKitMetadataFrameworkVersionKey"] as? Int, 1335)
        XCTAssertEqual(values["NSCloudKitMirroringDelegateCheckedCKIdentityDefaultsKey"] as? Bool, true)
        XCTAssertNotNil(values["NSCloudKitMirroringDelegateLastHistoryTokenKey"] as? [String: Any], "\(metadata)")
        let pairs = try XCTUnwrap(CLI.json(["cloudkit", store, "relationships", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(pairs.map { "\($0["entity"]!).\($0["relationship"]!) \($0["relatedRecordName"]!) \($0["isUploaded"]!)" },
                       ["Person.tags CD_Tag_1 1"])
        let events = try XCTUnwrap(CLI.json(["cloudkit", store, "events", "--format", "json"]) as? [[String: Any]])
        XCTAssertEqual(events.count, 8)
        XCTAssertEqual(events.first { $0["event"] as? Int == 3 }?["affectedObjects"] as? Int, 13)
    }

    /// The framework-977 table set: no event table, nothing ever exported, and a store
    /// without persistent history (which the exporter needs).
    func testAStoreThatNeverExported() throws {
        let plainFolder = folder.appendingPathComponent("plain", isDirectory: true)
        try FileManager.default.createDirectory(at: plainFolder, withIntermediateDirectories: true)
        let plain = try Fixtures.exampleStore(in: plainFolder, people: 5).path
        try SQLiteShell.run(plain, (MirroredStore.framework977 + MirroredStore.defaultZone).joined(separator: ";\n") + ";")
        let status = try json([], of: plain)
        XCTAssertTrue(status["lastExportedToken"] is NSNull)
        XCTAssertTrue(status["notExported"] is NSNull)
        XCTAssertTrue(status["events"] is NSNull)
        let never = try XCTUnwrap(status["neverExported"] as? [[String: Any]])
        let counts = Dictionary(uniqueKeysWithValues: never.map { ($0["entity"] as? String ?? "", $0["count"] as? Int ?? 0) })
        XCTAssertEqual(counts["Person"], 5)
        let verdict = try XCTUnwrap(status["verdict"] as? String)
        XCTAssertTrue(verdict.hasPrefix("nothing has ever been exported; the store keeps no persistent history"), verdict)
        let text = try CLI.run(["cloudkit", plain])
        XCTAssertTrue(text.stdout.contains("not recorded by this OS version"), text.stdout)
    }

    func testEventsFollowedAsTheyStartAndEnd() throws {
        try mirror(inWAL: false)
        let (out, err) = (folder.appendingPathComponent("out").path, folder.appendingPathComponent("err").path)
        let child = try ChildProcess([CLI.binary.path, "cloudkit", store, "events", "--follow", "--format", "json", "--timeout", "30", "--limit", "3"],
                                     environment: ProcessInfo.processInfo.environment, files: [1: out, 2: err])
        // Each change waits for the line before it: no two fall between the same two looks.
        XCTAssertTrue(FileWait.until(err, contains: "Ctrl-C stops"), "the follower never said it was ready")
        try SQLiteShell.run(store, "INSERT INTO ANSCKEVENT (Z_PK, ZCLOUDKITEVENTTYPE, ZSTARTEDAT, ZSUCCEEDED) VALUES (20, 2, \(now + 1000), 0)")
        XCTAssertTrue(FileWait.until(out, lines: 1), "no line for the event that started")
        try SQLiteShell.run(store, "UPDATE ANSCKEVENT SET ZENDEDAT = \(now + 1001), ZERRORDOMAIN = 'CKErrorDomain', ZERRORCODE = 15 WHERE Z_PK = 20")
        XCTAssertTrue(FileWait.until(out, lines: 2), "no line for the event that ended")
        // The running event 6 ends too; then one that started and ended between two looks.
        try SQLiteShell.run(store, "UPDATE ANSCKEVENT SET ZENDEDAT = \(now + 1002), ZSUCCEEDED = 1 WHERE Z_PK = 6")
        let ending = child.wait()
        XCTAssertEqual(ending.status, 0, (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(lines.map { "\($0["change"]!) \($0["event"]!)" }, ["started 20", "ended 20", "ended 6"])
        XCTAssertEqual(lines.count, 3, "\(lines)")
        XCTAssertEqual(lines[1]["error"] as? String, "serverRejectedRequest")
        XCTAssertEqual(lines[2]["succeeded"] as? Bool, true)
    }

    /// An agent asks the same two questions through the MCP server and gets the answers the
    /// command line gives.
    func testTheMCPToolAnswersStatusAndWhy() throws {
        try mirror(inWAL: false)
        let server = try MCPPipe([store])
        try server.handshake()
        try server.call(1, "cloudkit", [:])
        let status = try server.toolText(1)
        XCTAssertFalse(status.isError, status.text)
        var answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.text.utf8)) as? [String: Any], status.text)
        var expected = try json([])
        XCTAssertEqual(answer["verdict"] as? String, expected["verdict"] as? String)
        XCTAssertEqual(answer["lastExportedToken"] as? Int, exportedToken)
        try server.call(2, "cloudkit", ["view": "why", "object": "Person/p11"])
        let why = try server.toolText(2)
        XCTAssertFalse(why.isError, why.text)
        answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(why.text.utf8)) as? [String: Any], why.text)
        expected = try json(["why", "Person/p11"])
        XCTAssertEqual(answer["verdict"] as? String, expected["verdict"] as? String)
        try server.call(3, "cloudkit", ["view": "why"])
        let missing = try server.toolText(3)
        XCTAssertTrue(missing.isError && missing.text.contains("needs an object"), missing.text)
    }

    func testEveryFixtureWithoutMirroringSaysSoInOneLine() throws {
        let stores = try Fixtures.stores
        XCTAssertGreaterThan(stores.count, 10)
        for (i, relative) in stores.enumerated() {
            let into = folder.appendingPathComponent("fixture\(i)", isDirectory: true)
            try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
            let copy = try Fixtures.copy(relative, into: into)
            let r = try CLI.run(["cloudkit", copy.path])
            XCTAssertEqual(r.status, 1, relative)
            XCTAssertEqual(r.stdout, "", relative)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(relative): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("is not mirrored to CloudKit"), "\(relative): \(r.stderr)")
        }
    }
}

import Foundation
import XCTest

/// Query generations through the built binary: a session kept open on an example store the
/// test writes, while another process (the sqlite3 shell) commits to the same store.
final class GenerationTests: ExampleStoreTestCase {
    /// Another process commits: inserts a person, renames dave1, deletes dave0's car
    /// (Car/p1) and dave2's tag links, ages everybody by one.
    func commitElsewhere() throws {
        try SQLiteShell.run(store, """
            BEGIN;
            INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) VALUES (51, 3, 1, 'newcomer', 5);
            UPDATE Z_PRIMARYKEY SET Z_MAX = 51 WHERE Z_NAME = 'Person';
            UPDATE ZPERSON SET ZNAME = 'renamed', Z_OPT = Z_OPT + 1 WHERE Z_PK = 2;
            DELETE FROM ZCAR WHERE Z_PK = 1;
            DELETE FROM Z_3TAGS WHERE Z_3PEOPLE = 3;
            UPDATE ZPERSON SET ZAGE = ZAGE + 1, Z_OPT = Z_OPT + 1;
            COMMIT;
            """)
    }

    /// `key = value` lines (the line format) as a dictionary.
    func fields(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let range = line.range(of: " = ") else { continue }
            result[line[..<range.lowerBound].trimmingCharacters(in: .whitespaces)] = String(line[range.upperBound...])
        }
        return result
    }

    /// What the pinned context `a` and the unpinned `b` answer to the same reads.
    func reads(_ session: SessionDriver, _ context: String) -> [String] {
        [
            session.run("count Person --context \(context)").out,
            session.run("fetch Person --context \(context) --where 'name == \"dave1\"' --keys name --as dicts --format csv").out,
            session.run("fetch Person --context \(context) --where 'age == 76' --keys name --format csv").out,
            session.run("count Car --context \(context) --where 'owner.name == \"dave0\"'").out,
            { let r = session.run("get Car/p1 --context \(context) --format line"); return r.out + r.err }(),
            session.run("get Person/p3 --context \(context) --format line").out,
            session.run("get Car/p2 --context \(context) --format line").out,
        ]
    }

    func testAPinnedContextReadsItsSnapshotWhileAnotherProcessCommits() throws {
        let session = try SessionDriver(store: store)
        // a keeps its objects (retainsRegisteredObjects), to show they are not refreshed
        // when it changes generation.
        session.run("context new a --retains-registered-objects\ncontext new b")
        XCTAssertEqual(session.run("pin --context a\ntoken --context a\ntoken --context b").out, "g1\nunpinned\n")
        // The snapshot is taken at a's first read, before the other process commits.
        XCTAssertEqual(session.run("count Person --context a").out, "50\n")
        let before = reads(session, "a")
        try commitElsewhere()
        let pinned = reads(session, "a")
        XCTAssertEqual(pinned, before, "every read of the pinned context answers from its snapshot")
        XCTAssertEqual(pinned[0], "50\n")
        XCTAssertEqual(pinned[1], "name\ndave1\n")
        XCTAssertEqual(pinned[3], "1\n", "dave0 still has his car at a's generation")
        XCTAssertEqual(fields(pinned[4])["name"], "Mustang", "firing the fault of a car deleted since reads the snapshot")
        XCTAssertEqual(fields(pinned[5])["tags"]?.isEmpty, false, "the to-many fault reads the join table at the snapshot")
        XCTAssertEqual(fields(pinned[6])["owner"], uri("Person/p2"))

        // A context that was not pinned sees the commit at once.
        let unpinned = reads(session, "b")
        XCTAssertEqual(unpinned[0], "51\n")
        XCTAssertEqual(unpinned[1], "name\n")
        XCTAssertEqual(unpinned[3], "0\n")
        XCTAssertTrue(unpinned[4].contains("no object \(uri("Car/p1"))"), unpinned[4])
        XCTAssertEqual(fields(unpinned[5])["tags"], "")
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON"), "51")

        // The relationship fault of an object fetched before the commit also answers from
        // the snapshot: a's dave1, reached through Car/p2's owner, keeps its name.
        let owner = session.run("fetch Car --context a --where 'owner.age > 0 AND year > 0' --keys owner.name --limit 2 --format csv").out
        XCTAssertEqual(owner, "objectID,owner.name\n\(uri("Car/p1")),dave0\n\(uri("SportsCar/p2")),dave1\n")

        // Unpinned again, a reads the newest data; its realized objects keep their values
        // until refreshed (generation changes do not refresh registered objects).
        XCTAssertEqual(session.run("unpin --context a\ncount Person --context a\ntoken --context a").out, "51\nunpinned\n")
        XCTAssertEqual(fields(session.run("get Person/p3 --context a --format line").out)["age"], fields(pinned[5])["age"])
        session.run("refresh Person/p3 --context a")
        let refreshedAge = fields(session.run("get Person/p3 --context a --format line").out)["age"]
        XCTAssertEqual(refreshedAge.flatMap(Int.init), fields(pinned[5])["age"].flatMap(Int.init).map { $0 + 1 })
        XCTAssertEqual(try session.finish(), 1, "b's 'get Car/p1' failed")
    }

    func testContextsPinnedByTokenOrByContextShareOneSnapshot() throws {
        let session = try SessionDriver(store: store)
        session.run("context new a\ncontext new b\ncontext new c")
        // b joins a's generation before it is taken; the first read of either takes it.
        session.run("pin --context a\npin g1 --context b")
        try commitElsewhere()
        XCTAssertEqual(session.run("count Person --context b").out, "51\n", "the snapshot is taken at the first read")
        try SQLiteShell.run(store, "DELETE FROM ZPERSON WHERE Z_PK = 51")
        XCTAssertEqual(session.run("count Person --context a\ncount Person --context b").out, "51\n51\n")
        // c joins by naming a context; all three read the same snapshot.
        session.run("pin a --context c")
        XCTAssertEqual(session.run("count Person --context c\ntoken --context c").out, "51\ng1\n")
        XCTAssertEqual(session.run("count Person").out, "50\n", "main is unpinned")
        let listed = session.run("generations --format csv").out
        // The files' generations first (the main file, the other process's two commits), then the live one.
        let lines = listed.split(separator: "\n")
        XCTAssertEqual(lines.first.map(String.init), "token,contexts,snapshot,heldFrames,heldBytes,kind,firstFrame,lastFrame,pages,size,inserted,updated,deleted,author,time,contextName,note", listed)
        XCTAssertEqual(lines.dropFirst().map { $0.split(separator: ",").first.map(String.init) ?? "" }, ["w0", "w1", "w2", "g1"], listed)
        XCTAssertTrue(lines.last?.hasPrefix("g1,\"a,b,c\",frame ") == true, listed)
        // Errors: an unknown token, an unpinned context, a child.
        session.run("context new kid --parent a")
        let errors = session.run("pin g9 --context b\npin main --context b\npin --context kid").err
        XCTAssertTrue(errors.contains("no live generation 'g9'"), errors)
        XCTAssertTrue(errors.contains("context 'main' is not pinned"), errors)
        XCTAssertTrue(errors.contains("context 'kid' is a child: it reads through its parent's generation; pin 'a' instead"), errors)
        XCTAssertEqual(session.run("token --context b").out, "g1\n", "a failed pin leaves the context as it was")
        // The generation lives while a context refers to it.
        session.run("unpin --context a\nunpin --context b\ncontext use c\ncontext drop kid")
        XCTAssertEqual(session.run("generations --format csv").out.split(separator: "\n").filter { $0.hasPrefix("g") }.count, 1)
        session.run("context use main\ncontext drop c")
        XCTAssertEqual(session.run("generations --format csv").out.split(separator: "\n").filter { $0.hasPrefix("g") }, [], "no live generation is left")
        XCTAssertTrue(session.run("pin g1 --context a").err.contains("no live generation 'g1'"))
        XCTAssertEqual(try session.finish(), 1)
    }

    func testSaveUnpinsResetAndMergesRepinAChildReadsThroughItsParent() throws {
        let session = try SessionDriver(store: store)
        session.run("context new a\ncontext new kid --parent a")
        session.run("pin --context a\ncount Person --context a")
        try commitElsewhere()

        // A child reads through its parent's generation plus the parent's pending changes.
        session.run("update Person/p1 name=pending --context a")
        XCTAssertEqual(session.run("""
            count Person --context kid
            count Person --context kid --where 'name == "pending" OR name == "dave1"'
            token --context kid
            context list --format csv
            """).out, "50\n2\nunpinned\n" + """
            name,parent,current,pin,registered,changes,mergePolicy
            main,NULL,YES,unpinned,0,0,error
            background,NULL,NO,unpinned,0,0,error
            a,NULL,NO,g1,1,1,error
            kid,a,NO,via parent (g1),0,0,error

            """)

        // Reset pins a pinned context again, at the newest generation.
        XCTAssertEqual(session.run("reset --context a\ntoken --context a\ncount Person --context a\ncount Person --context kid").out,
                       "g2\n51\n51\n")
        XCTAssertEqual(session.run("context new u\nreset --context u\ntoken --context u").out, "unpinned\n",
                       "reset leaves an unpinned context unpinned")

        // Save leaves the context unpinned (seed 001).
        XCTAssertEqual(session.run("update Person/p1 name=saved --context a\nsave --context a\ntoken --context a").out,
                       "saved into the store: 0 inserted, 1 updated, 0 deleted\nunpinned\n")

        // Merging another context's save pins a pinned context at the newest generation:
        // main and background merge each other's saves.
        session.run("pin --context main\ncount Person --context main")
        try SQLiteShell.run(store, "DELETE FROM ZPERSON WHERE Z_PK = 51")
        XCTAssertEqual(session.run("count Person --context main\ntoken --context main").out, "51\ng3\n")
        session.run("update Person/p5 name=fromBackground --context background\nsave --context background")
        XCTAssertEqual(session.run("token --context main\ncount Person --context main").out, "g4\n50\n")
        XCTAssertEqual(session.run("fetch Person --where 'name == \"fromBackground\"' --keys name --format csv").out,
                       "objectID,name\n\(uri("Person/p5")),fromBackground\n")
        XCTAssertEqual(try session.finish(), 0)
    }

    func testDiffListsWhatChangedBetweenGenerations() throws {
        let session = try SessionDriver(store: store)
        session.run("context new a\npin --context a\ncount Person --context a")
        try SQLiteShell.run(store, """
            INSERT INTO ZCAR (Z_PK, Z_ENT, Z_OPT, ZNAME, ZOWNER) VALUES (51, 2, 1, 'Roadster', 3);
            UPDATE ZPERSON SET ZNAME = 'x', Z_OPT = Z_OPT + 1 WHERE Z_PK = 7;
            DELETE FROM ZCAR WHERE Z_PK = 1;
            DELETE FROM ZTAG WHERE Z_PK = 2;
            """)
        let expected = """
            change,objectID,before,after
            deleted,\(uri("Car/p1")),1,NULL
            updated,\(uri("Person/p7")),1,2
            inserted,\(uri("SportsCar/p51")),NULL,1
            deleted,\(uri("Tag/p2")),1,NULL

            """
        XCTAssertEqual(session.run("diff a --format csv").out, expected)
        XCTAssertEqual(session.run("context new b\npin --context b\ndiff a b --format csv").out, expected)
        XCTAssertEqual(session.run("diff g1 current --format csv\ndiff b --format csv").out,
                       expected + "change,objectID,before,after\n")
        XCTAssertTrue(session.run("diff g7").err.contains("no live generation 'g7'"))
        XCTAssertEqual(try session.finish(), 1)
    }

    func testTheLastUnpinLetsACheckpointShrinkTheWAL() throws {
        let session = try SessionDriver(store: store)
        session.run("pin\ncount Person\ncontext new b\npin main --context b")
        let rows = (52...400).map { "(\($0), 3, 1, 'p\($0)', \($0))" }.joined(separator: ",")
        try SQLiteShell.run(store, "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) VALUES \(rows)")
        let wal = store + "-wal"
        func walSize() throws -> Int { (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? -1 }

        let held = session.run("generations --format csv").out.split(separator: "\n").last.map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
        XCTAssertEqual(held.first, "g1")
        XCTAssertGreaterThan(Int(held.count > 4 ? held[4] : "") ?? 0, 0, "the generation holds WAL frames back (heldBytes)")
        // A checkpoint cannot pass a live generation: the WAL keeps its frames.
        XCTAssertTrue(try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)").hasPrefix("1|"))
        XCTAssertGreaterThan(try walSize(), 0)
        session.run("unpin")
        XCTAssertTrue(try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)").hasPrefix("1|"), "b still holds it")
        XCTAssertGreaterThan(try walSize(), 0)
        XCTAssertEqual(session.run("count Person --context b").out, "50\n")
        session.run("unpin --context b")
        XCTAssertEqual(try SQLiteShell.run(store, "PRAGMA wal_checkpoint(TRUNCATE)"), "0|0|0")
        XCTAssertEqual(try walSize(), 0)
        XCTAssertEqual(session.run("count Person --context b").out, "399\n")
        XCTAssertEqual(try session.finish(), 0)
    }

    func testARollbackJournalStoreCannotBePinned() throws {
        try SQLiteShell.run(store, "PRAGMA journal_mode=DELETE")
        let session = try SessionDriver(store: store)
        let r = session.run("pin\ntoken\ngenerations --format csv")
        // The main file is the one generation a rollback-journal store's files hold; no live one.
        XCTAssertEqual(r.out, "unpinned\ntoken,contexts,snapshot,heldFrames,heldBytes,kind,firstFrame,lastFrame,pages,size,inserted,updated,deleted,author,time,contextName,note\nw0,NULL,NULL,NULL,NULL,main-file,NULL,NULL,NULL,14,NULL,NULL,NULL,NULL,NULL,NULL,NULL\n")
        XCTAssertTrue(r.err.contains("warning: the store is in delete journal mode, not WAL: it cannot hold query generations, "
                                     + "so context 'main' stays unpinned"), r.err)
        try commitElsewhere()
        XCTAssertEqual(session.run("count Person").out, "51\n", "the context reads unpinned")
        XCTAssertEqual(try session.finish(), 0)
        XCTAssertEqual(try SQLiteShell.read(store, "PRAGMA journal_mode"), "delete", "pinning does not change the journal mode")
    }
}

extension GenerationTests {
    /// `unpin CONTEXT` names its target as `pin` does; naming two contexts is a usage error.
    func testUnpinTakesTheContextAsPinDoes() throws {
        let store = try Fixtures.exampleStore(in: try Fixtures.temporaryDirectory(self)).path
        let r = try CLI.run([store, "-c", "context new a", "-c", "pin --context a", "-c", "count Person --context a",
                             "-c", "unpin a", "-c", "token --context a"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "50\nunpinned\n")
        let both = try CLI.run([store, "-c", "context new a", "-c", "unpin a --context main"])
        XCTAssertEqual(both.status, 64)
        XCTAssertEqual(both.stderr, "cdinspect: error: unpin names two contexts, 'a' and --context main: name one\n")
    }
}

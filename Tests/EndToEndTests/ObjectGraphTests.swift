import Foundation
import ManagedStore
import StoreCreation
import XCTest

/// Objects in a context through the built binary: registration and faults, pending changes
/// in fetches, staleness, value checking, and ordered relationships on a store the test
/// creates from its own model.
final class ObjectGraphTests: ExampleStoreTestCase {
    func script(_ lines: String, store: String? = nil) throws -> CLI.Result {
        try CLI.run([store ?? self.store, "--keep-going"], stdin: lines)
    }

    /// Unchanged objects live as long as the session's last result holds them; changed ones
    /// until saved; all of them with retains-registered-objects.
    func testRegisteredObjectsAreHeldWeaklyUnlessRetained() throws {
        let result = try script("""
            fetch Person --limit 2 --format csv
            registered --format csv
            get Person/p3 --format csv
            update Person/p2 age=1
            fetch Car --limit 1 --no-faults --format csv
            registered --format csv
            context set retains-registered-objects yes
            fetch Tag --limit 2 --format csv
            fetch Car --limit 1 --offset 1 --format csv
            registered --format csv
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        let listings = result.stdout.components(separatedBy: "objectID,state\n").dropFirst().map { $0.components(separatedBy: "objectID,")[0] }
        XCTAssertEqual(listings[0], "\(uri("Person/p1")),fault\n\(uri("Person/p2")),fault\n")
        XCTAssertEqual(listings[1], "\(uri("Car/p1")),realized\n\(uri("Person/p2")),updated\n",
                       "the fetched people and the realized p3 are let go; the changed p2 is kept")
        XCTAssertEqual(listings[2], "\(uri("Car/p1")),realized\n\(uri("Person/p2")),updated\n\(uri("SportsCar/p2")),fault\n"
                       + "\(uri("Tag/p1")),fault\n\(uri("Tag/p2")),fault\n")
    }

    /// Unsaved inserts, updates and deletes are matched in memory and merged into the
    /// store's rows at their sort position; counts agree; --no-pending shows the store.
    func testFetchesIncludePendingChanges() throws {
        let result = try script("""
            insert Person name=dave-new id=11111111-2222-3333-4444-555555555555 age=50
            update Person/p3 age=99
            update Person/p5 name=zed
            delete Person/p2
            fetch Person --where 'name BEGINSWITH "dave" AND age >= 50' --sort age:desc --sort name --keys name,age --format csv
            count Person --where 'name BEGINSWITH "dave" AND age >= 50'
            fetch Person --where 'name BEGINSWITH "dave" AND age >= 50' --sort age:desc --sort name --limit 3 --offset 1 --keys name --format csv
            count Person --where 'name BEGINSWITH "dave" AND age >= 50' --no-pending
            count Person
            count Person --no-pending
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        let sections = result.stdout.components(separatedBy: "objectID,name").dropFirst().map { section in
            section.split(separator: "\n").filter { $0.hasPrefix("x-coredata") }.map { $0.split(separator: ",").dropFirst().joined(separator: ",") }
        }
        // Check the merge against the store's own answer for the other people.
        let storeRows = try SQLiteShell.read(store, "SELECT ZNAME || ',' || ZAGE FROM ZPERSON WHERE ZNAME LIKE 'dave%' AND ZAGE >= 50 AND Z_PK NOT IN (2, 3, 5) ORDER BY ZAGE DESC, ZNAME")
            .split(separator: "\n").map(String.init)
        var expected = storeRows + ["dave2,99", "dave-new,50"]
        expected.sort { a, b in
            let (x, y) = (a.split(separator: ","), b.split(separator: ","))
            return Int(x[1])! != Int(y[1])! ? Int(x[1])! > Int(y[1])! : x[0].utf8.lexicographicallyPrecedes(y[0].utf8)
        }
        XCTAssertEqual(sections[0], expected)
        XCTAssertEqual(sections[1], expected.dropFirst().prefix(3).map { String($0.split(separator: ",")[0]) })
        let counts = result.stdout.split(separator: "\n").filter { Int($0) != nil }.map(String.init)
        XCTAssertEqual(counts, [String(expected.count), try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZNAME LIKE 'dave%' AND ZAGE >= 50"), "50", "50"])
    }

    /// A fault fired from a fetched row uses that row until the staleness interval says it is
    /// too old; then the row is read again.
    func testStalenessIntervalDecidesWhenAFaultRereadsItsRow() throws {
        let session = try SessionDriver(store: store)
        session.run("fetch Person --limit 3")
        try SQLiteShell.run(store, "UPDATE ZPERSON SET ZNAME = 'changed', Z_OPT = Z_OPT + 1 WHERE Z_PK IN (1, 2)")
        var r = session.run("get Person/p1 --format csv")
        XCTAssertTrue(r.out.contains(",dave0,"), "infinite staleness (the default): the fetched row is used: \(r.out)")
        r = session.run("fetch Person --limit 3\ncontext set staleness-interval 0\nget Person/p2 --format csv")
        XCTAssertTrue(r.out.contains(",changed,"), "staleness 0: firing reads the row again: \(r.out)")
        XCTAssertEqual(try session.finish(), 0)
    }

    func testBadValuesAreRefusedWithTheEntityAndKey() throws {
        let cases: [(String, String)] = [
            ("update Person/p1 age=old", "Person.age: expects an integer, not old"),
            ("update Person/p1 age=99999999999", "Person.age: 99999999999 does not fit an Integer 32"),
            ("update Person/p1 isActive=maybe", "Person.isActive: expects YES or NO, not maybe"),
            ("update Person/p1 birthday=yesterday", "Person.birthday: expects a date"),
            ("update Person/p1 id=not-a-uuid", "Person.id: expects a UUID, not not-a-uuid"),
            ("update Person/p1 shoeSize=3", "entity Person has no property 'shoeSize'"),
            ("update Person/p1 cars=Tag/p1", "Tag/p1 is not a Car"),
            ("update Person/p1 cars=Car/p999", "no object"),
            ("update Person/p1 age", "expected KEY=VALUE, not 'age'"),
            ("get Person/q1", "'Person/q1' is not an object ID"),
            ("get Persn/p1", "unknown entity 'Persn' (did you mean 'Person'?)"),
            ("insert Person name", "expected KEY=VALUE"),
        ]
        for (line, message) in cases {
            let result = try script(line + "\nchanges --format csv")
            XCTAssertEqual(result.status, message.hasPrefix("expected KEY=VALUE") ? 64 : 1, line)
            XCTAssertTrue(result.stderr.contains(message), "\(line): \(result.stderr)")
            XCTAssertEqual(result.stdout, "change,objectID,keys\n", "\(line): a refused command changes nothing")
        }
    }

    /// Ordered relationships fire in the store's order (Z_FOK_ columns) and a save writes
    /// the new order; a to-many with an inverse key and an ordered many-to-many are covered.
    func testOrderedRelationships() throws {
        let modelFolder = folder.appendingPathComponent("Music.xcdatamodel")
        try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
        try """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Playlist" representedClassName="Playlist" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="songs" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="playlist" inverseEntity="Song"/>
                    <relationship name="labels" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Label" inverseName="playlists" inverseEntity="Label"/>
                </entity>
                <entity name="Song" representedClassName="Song" syncable="YES">
                    <attribute name="title" attributeType="String"/>
                    <relationship name="playlist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist"/>
                </entity>
                <entity name="Label" representedClassName="Label" syncable="YES">
                    <attribute name="name" attributeType="String"/>
                    <relationship name="playlists" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Playlist" inverseName="labels" inverseEntity="Playlist"/>
                </entity>
            </model>
            """.write(to: modelFolder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("Music.sqlite").path
        try StoreCreator.create(at: path, model: try XcdatamodelReader.model(atPath: modelFolder.path))
        try StoreLoader.load(path) { loader in
            let list = try loader.insert("Playlist", ["title": "mix"])
            var songs: [Int64] = []
            for title in ["one", "two", "three"] { songs.append(try loader.insert("Song", ["title": title, "playlist": list])) }
            for (song, order) in zip(songs, [3, 1, 2]) { try loader.relate("Playlist", list, "songs", song, order: Int64(order)) }
            let a = try loader.insert("Label", ["name": "a"]), b = try loader.insert("Label", ["name": "b"])
            try loader.relate("Playlist", list, "labels", b, order: 1)
            try loader.relate("Playlist", list, "labels", a, order: 2)
        }
        let storeUUID = try SQLiteShell.read(path, "SELECT Z_UUID FROM Z_METADATA")
        func playlist() throws -> [String: Any] {
            let out = try script("get Playlist/p1 --format json", store: path)
            XCTAssertEqual(out.status, 0, out.stderr)
            return try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [[String: Any]])?.first)
        }
        var list = try playlist()
        XCTAssertEqual(list["songs"] as? [String], ["Song/p2", "Song/p3", "Song/p1"].map { uri($0, uuid: storeUUID) })
        XCTAssertEqual(list["labels"] as? [String], ["Label/p2", "Label/p1"].map { uri($0, uuid: storeUUID) })
        let saved = try script("""
            insert Song title=four playlist=Playlist/p1
            update Playlist/p1 labels={Label/p1,Label/p2}
            save
            """, store: path)
        XCTAssertEqual(saved.status, 0, saved.stderr)
        list = try playlist()
        XCTAssertEqual(list["songs"] as? [String], ["Song/p2", "Song/p3", "Song/p1", "Song/p4"].map { uri($0, uuid: storeUUID) },
                       "a song added through its to-one goes to the end of the ordered list")
        XCTAssertEqual(list["labels"] as? [String], ["Label/p1", "Label/p2"].map { uri($0, uuid: storeUUID) })
        XCTAssertEqual(try SQLiteShell.read(path, "PRAGMA integrity_check"), "ok")
    }
}

import Foundation
import ManagedStore
import StoreCreation
import XCTest

/// Objects in a context through the built binary: staleness, value checking, and ordered
/// relationships on a store the test creates from its own model. (Registration and pending
/// changes in fetches run in process: InspectorTests' `ObjectGraphSemanticsTests`.)
final class ObjectGraphTests: ExampleStoreTestCase {
    func script(_ lines: String, store: String? = nil) throws -> CLI.Result {
        try CLI.run([store ?? self.store, "--keep-going"], stdin: lines)
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

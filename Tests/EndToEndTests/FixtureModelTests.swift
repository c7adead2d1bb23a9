import Foundation
import GRDB
import ManagedStore
import XCTest

/// `info`, `entities` and `schema` on every genuine store, compared with the independently
/// decoded `*.model.txt` dumps and with the data itself.
final class FixtureModelTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    func schema(_ store: URL, _ extra: [String] = []) throws -> [[String: Any]] {
        let json = try CLI.json(["schema", store.path, "--format", "json"] + extra)
        if let one = json as? [String: Any] { return [one] }
        return try XCTUnwrap(json as? [[String: Any]])
    }

    func entities(_ store: URL) throws -> [String: [String: Any]] {
        let list = try XCTUnwrap(CLI.json(["entities", store.path, "--format", "json"]) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as! String, $0) })
    }

    /// Every store with a dump: same entities, hierarchy, property names (original case),
    /// attribute types and flags, relationship destinations, inverses, counts and ordering.
    func testSchemaMatchesModelDumps() throws {
        var checkedStores = 0
        for relative in try Fixtures.stores {
            let dumpURL = try Fixtures.directory.appendingPathComponent(relative.replacingOccurrences(of: ".sqlite", with: ".model.txt"))
            guard FileManager.default.fileExists(atPath: dumpURL.path) else { continue }
            let dump = try ModelDump(contentsOf: dumpURL)
            guard !dump.entities.isEmpty else { continue }   // no model cache: see testStoreWithoutModelCache
            let store = try Fixtures.copy(relative, into: folder.appendingPathComponent(UUID().uuidString, isDirectory: true).creatingDirectory())
            let actual = Dictionary(uniqueKeysWithValues: try schema(store).map { ($0["name"] as! String, $0) })
            XCTAssertEqual(Set(actual.keys), Set(dump.entities.keys), relative)
            for (name, expected) in dump.entities {
                guard let entity = actual[name] else { continue }
                let context = "\(relative) \(name)"
                XCTAssertEqual(entity["parent"] as? String, expected.superentity, context)
                XCTAssertEqual(entity["abstract"] as? Bool, expected.abstract, context)
                let attributes = Dictionary(uniqueKeysWithValues: (entity["attributes"] as! [[String: Any]]).map { ($0["name"] as! String, $0) })
                let relationships = Dictionary(uniqueKeysWithValues: (entity["relationships"] as! [[String: Any]]).map { ($0["name"] as! String, $0) })
                let fetched = Set((entity["fetchedProperties"] as! [[String: Any]]).map { $0["name"] as! String })
                XCTAssertEqual(Set(attributes.keys).union(relationships.keys).union(fetched),
                               Set(expected.properties.map(\.name)), context)
                for property in expected.properties {
                    let f = property.fields
                    let where_ = "\(context).\(property.name)"
                    switch property.kind {
                    case "NSAttributeDescription", "NSDerivedAttributeDescription":
                        let a = try XCTUnwrap(attributes[property.name], where_)
                        XCTAssertEqual(a["optional"] as? Bool, f["optional"] == "True", where_)
                        XCTAssertEqual(a["transient"] as? Bool, f["transient"] == "True", where_)
                        XCTAssertEqual(a["derived"] as? Bool, property.kind == "NSDerivedAttributeDescription", where_)
                        if let type = f["type"] {
                            XCTAssertEqual((a["type"] as? String)?.replacingOccurrences(of: " ", with: ""), type, where_)
                        }
                        if let transformer = f["transformer"], transformer != "None" {
                            XCTAssertEqual(a["transformer"] as? String, transformer, where_)
                        }
                    case "NSRelationshipDescription":
                        let r = try XCTUnwrap(relationships[property.name], where_)
                        // The dump prints `<ref N>` where its decoder did not resolve the entity.
                        if !(f["dest"] ?? "").hasPrefix("<ref") {
                            XCTAssertEqual(r["destination"] as? String, f["dest"], where_)
                        }
                        if !(f["inverse"] ?? "").hasPrefix("<ref") {
                            XCTAssertEqual(r["inverse"] as? String, f["inverse"] == "None" ? nil : f["inverse"], where_)
                        } else {
                            XCTAssertEqual(r["inverse"] as? String, property.name, "\(where_): a self-inverse relationship")
                        }
                        XCTAssertEqual(r["minCount"] as? Int, Int(f["min"] ?? ""), where_)
                        XCTAssertEqual(r["maxCount"] as? Int, Int(f["max"] ?? ""), where_)
                        XCTAssertEqual(r["ordered"] as? Bool, f["ordered"] == "True", where_)
                        XCTAssertEqual(r["optional"] as? Bool, f["optional"] == "True", where_)
                        let storage = r["storage"] as! [String: Any]
                        XCTAssertNotEqual(storage["kind"] as? String, "none", "\(where_): \(storage)")
                    case "NSFetchedPropertyDescription":
                        XCTAssertTrue(fetched.contains(property.name), where_)
                    default:
                        XCTFail("unexpected kind \(property.kind) in \(where_)")
                    }
                }
                // Every stored attribute found its column.
                for (attributeName, a) in attributes where !(a["transient"] as! Bool) {
                    XCTAssertNotNil(a["column"] as? String, "\(context).\(attributeName) has no column")
                }
            }
            checkedStores += 1
        }
        XCTAssertEqual(checkedStores, 12, "every store with a model cache was checked")
    }

    func testPhotosHasAll68EntitiesWithOriginalCaseAndJoinTables() throws {
        let store = try Fixtures.copy("RhetTbull_PhotoScript/Photos.sqlite", into: folder)
        let entities = try entities(store)
        XCTAssertEqual(entities.count, 68)
        XCTAssertNotNil(entities["DetectedFaceGroup"])
        XCTAssertEqual(entities["CloudSharedAlbum"]?["parent"] as? String, "Album")
        XCTAssertEqual(entities["CloudSharedAlbum"]?["table"] as? String, "ZGENERICALBUM")
        let schema = try schema(store)
        var joinTables: Set<String> = []
        for entity in schema {
            for r in entity["relationships"] as! [[String: Any]] {
                let storage = r["storage"] as! [String: Any]
                if storage["kind"] as? String == "joinTable" { joinTables.insert(storage["table"] as! String) }
            }
        }
        // All 21 join tables of the Photos schema are found, ordered and reflexive ones included.
        XCTAssertEqual(joinTables.count, 21, "\(joinTables.sorted())")
        let album = try XCTUnwrap(schema.first { $0["name"] as? String == "Album" })
        let assets = try XCTUnwrap((album["relationships"] as! [[String: Any]]).first { $0["name"] as? String == "assets" })
        XCTAssertEqual(assets["storage"] as? NSDictionary, [
            "kind": "joinTable", "table": "Z_30ASSETS", "sourceColumn": "Z_30ALBUMS",
            "destinationColumn": "Z_3ASSETS", "orderColumn": "Z_FOK_3ASSETS",
        ] as NSDictionary)
        let contributor = try XCTUnwrap(schema.first { $0["name"] as? String == "Asset" })
        let hidden = try XCTUnwrap((contributor["relationships"] as! [[String: Any]]).first { $0["name"] as? String == "libraryScopeAssetContributors" })
        XCTAssertEqual((hidden["storage"] as! [String: Any])["column"] as? String, "Z3LIBRARYSCOPEASSETCONTRIBUTORS")
    }

    /// Notes keeps 13 entities in one table; colliding names get numeric suffixes. Each
    /// suffixed column must hold values only in rows of the entities that own it.
    func testNotesSuffixColumnsBelongToTheirEntities() throws {
        for name in ["NoteStore-macOS-12-Monterey.sqlite", "NoteStore-macOS-26-Tahoe.sqlite"] {
            let store = try Fixtures.copy("RhetTbull_apple-notes-parser/\(name)", into: folder)
            let schema = try schema(store)
            let counts = try entities(store)
            let queue = try DatabaseQueue(path: store.path, configuration: { var c = Configuration(); c.readonly = true; return c }())
            var suffixed = 0
            for entity in schema {
                let entityName = entity["name"] as! String
                var ids: [Int] = []
                func collect(_ n: String) {
                    ids.append(counts[n]!["entityID"] as! Int)
                    for child in schema where child["parent"] as? String == n { collect(child["name"] as! String) }
                }
                collect(entityName)
                for a in entity["attributes"] as! [[String: Any]] where a["declaredBy"] as? String == entityName {
                    guard let column = a["column"] as? String else { continue }
                    if column.last!.isNumber { suffixed += 1 }
                    let strays = try queue.read { db in
                        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(entity["table"] as! String) WHERE \(column) IS NOT NULL AND Z_ENT NOT IN (\(ids.map(String.init).joined(separator: ",")))")
                    }
                    XCTAssertEqual(strays, 0, "\(name) \(entityName).\(a["name"]!) → \(column)")
                }
            }
            XCTAssertGreaterThan(suffixed, 5, name)
            let note = try XCTUnwrap(schema.first { $0["name"] as? String == "ICNote" })
            let title = try XCTUnwrap((note["attributes"] as! [[String: Any]]).first { $0["name"] as? String == "title" })
            XCTAssertEqual(title["column"] as? String, "ZTITLE1", name)
        }
    }

    func testHistoryTablesAreRecognised() throws {
        for (relative, expected) in [("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite", true),
                                     ("RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite", true),
                                     ("alemar11_CoreDataPlus/SampleModel__Fixtures__SampleModel_V1.sqlite", false)] {
            let store = try Fixtures.copy(relative, into: folder)
            let info = try XCTUnwrap(CLI.json(["info", store.path, "--format", "json"]) as? [String: Any])
            XCTAssertEqual(info["persistentHistory"] as? Bool, expected, relative)
            // History entities (16001…) are not user entities.
            XCTAssertNil(try entities(store)["TRANSACTION"], relative)
        }
    }

    func testWALOnlyDataIsVisible() throws {
        let store = try Fixtures.copy("wibosco_CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", into: folder)
        XCTAssertEqual(try entities(store)["Post"]?["count"] as? Int, 84)
        let info = try XCTUnwrap(CLI.json(["info", store.path, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(info["journalMode"] as? String, "wal")
        XCTAssertEqual(info["walSize"] as? Int, 1_763_392)
    }

    func testStoreWithoutModelCache() throws {
        let store = try Fixtures.copy("hwaxxer_BookMigration/Model1.sqlite", into: folder)
        let info = try XCTUnwrap(CLI.json(["info", store.path, "--format", "json"]) as? [String: Any])
        XCTAssertEqual(info["frameworkVersion"] as? Int, 419)
        XCTAssertTrue((info["model"] as? String ?? "").hasPrefix("schema"))
        let entities = try entities(store)
        XCTAssertEqual(Set(entities.keys), ["Book", "User"])
        // Names come from the schema, matched without case; the to-one key is recognised.
        let book = try XCTUnwrap(try schema(store, ["Book"]).first)
        let names = (book["attributes"] as! [[String: Any]]).map { $0["name"] as! String }
        XCTAssertEqual(Set(names), ["authorname", "title", "fileurl"])
        XCTAssertEqual((book["relationships"] as! [[String: Any]]).first?["destination"] as? String, "User")
        // With --model, original names and the inverse come back.
        let model = try Fixtures.directory.appendingPathComponent("hwaxxer_BookMigration/Model1.xcdatamodel__contents").path
        let user = try XCTUnwrap(try schema(store, ["User", "--model", model]).first)
        XCTAssertEqual((user["attributes"] as! [[String: Any]]).map { $0["name"] as! String }, ["userId"])
        let books = try XCTUnwrap((user["relationships"] as! [[String: Any]]).first)
        XCTAssertEqual(books["storage"] as? NSDictionary, ["kind": "inverseForeignKey", "table": "ZBOOK", "column": "ZUSER", "orderColumn": NSNull()] as NSDictionary)
    }

    func testEntityCountsIncludeSubentities() throws {
        let store = try Fixtures.copy("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V1.sqlite", into: folder)
        let entities = try entities(store)
        XCTAssertEqual(entities["Book"]?["count"] as? Int, 52)
        XCTAssertEqual(entities["Book"]?["own"] as? Int, 51)
        XCTAssertEqual(entities["GraphicNovel"]?["count"] as? Int, 1)
        XCTAssertEqual(entities["Writer"]?["abstract"] as? Bool, true)
        XCTAssertEqual(entities["Writer"]?["count"] as? Int, 2)
        let page = try XCTUnwrap(try schema(store, ["Page"]).first)
        let book = try XCTUnwrap((page["relationships"] as! [[String: Any]]).first { $0["name"] as? String == "book" })
        XCTAssertEqual((book["storage"] as! [String: Any])["entityColumn"] as? String, "Z1_BOOK")
    }

    /// Every entity of every fixture counts the rows SQL finds under its `Z_ENT` subtree (as
    /// `Z_PRIMARYKEY.Z_SUPER` links it), and every row of a table belongs to some entity.
    /// `SampleModel_V2` renamed ExpensiveSportCar to LuxuryCar, and `Z_PRIMARYKEY` keeps the
    /// old name: LuxuryCar's renaming identifier finds its 5 rows.
    func testEveryEntityCountsItsRowsAndNoRowIsLost() throws {
        var checked = 0
        for relative in try Fixtures.stores {
            let store = try Fixtures.copy(relative, into: folder.appendingPathComponent(UUID().uuidString, isDirectory: true).creatingDirectory())
            let path = store.path
            guard try SQLiteShell.read(path, "SELECT count(*) FROM sqlite_master WHERE name = 'Z_PRIMARYKEY'") == "1" else { continue }
            var children: [Int: [Int]] = [:]
            for line in try SQLiteShell.read(path, "SELECT Z_ENT || ',' || Z_SUPER FROM Z_PRIMARYKEY").split(separator: "\n") {
                let pair = line.split(separator: ",").compactMap { Int($0) }
                if pair.count == 2 { children[pair[1], default: []].append(pair[0]) }
            }
            func subtree(_ id: Int) -> [Int] { [id] + (children[id] ?? []).flatMap(subtree) }
            let list = try XCTUnwrap(CLI.json(["entities", path, "--format", "json"]) as? [[String: Any]])
            var ownByTable: [String: Int] = [:]
            for entity in list {
                guard let table = entity["table"] as? String, let id = entity["entityID"] as? Int else { continue }
                let ids = subtree(id).map(String.init).joined(separator: ",")
                let expected = try SQLiteShell.read(path, "SELECT count(*) FROM \(table) WHERE Z_ENT IN (\(ids))")
                XCTAssertEqual(entity["count"] as? Int, Int(expected), "\(relative) \(entity["name"] ?? "")")
                ownByTable[table, default: 0] += entity["own"] as? Int ?? 0
                checked += 1
            }
            for (table, own) in ownByTable {
                XCTAssertEqual(String(own), try SQLiteShell.read(path, "SELECT count(*) FROM \(table)"), "\(relative): rows of \(table) no entity owns")
            }
            if relative.hasSuffix("SampleModel__Fixtures__SampleModel_V2.sqlite") {
                XCTAssertEqual(try CLI.run(["count", path, "Car"]).stdout, "125\n")
                XCTAssertEqual(try CLI.run(["count", path, "LuxuryCar"]).stdout, "5\n")
                // The cache names the old entity (NSRenamingIdentifier), which is what matches the row.
                let model = try PersistentStore(path: path, options: .init(readonly: true)).model
                XCTAssertEqual(model.entity(named: "LuxuryCar")?.renamingIdentifier, "ExpensiveSportCar")
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// An entity renamed in the model (`elementID`, the renaming identifier) whose store still
    /// names its `Z_PRIMARYKEY` row after the old name, in a model where an added entity has
    /// moved the numbering: only the renaming identifier finds the right row (numbering
    /// alone would give SportsCar the number Tag's row has).
    func testARenamingIdentifierFindsTheRowOfTheOldName() throws {
        let store = try Fixtures.exampleStore(in: folder).path
        try SQLiteShell.run(store, "UPDATE Z_PRIMARYKEY SET Z_NAME = 'FastCar' WHERE Z_NAME = 'SportsCar'")
        let contents = Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld/People.xcdatamodel/contents")
        var xml = try String(contentsOf: contents, encoding: .utf8)
        xml = xml.replacingOccurrences(of: "<entity name=\"SportsCar\" ", with: "<entity name=\"SportsCar\" elementID=\"FastCar\" ")
        xml = xml.replacingOccurrences(of: "<entity name=\"Car\" ", with: "<entity name=\"Bike\" representedClassName=\"Bike\" syncable=\"YES\"/>\n    <entity name=\"Car\" ")
        let model = folder.appendingPathComponent("Renamed.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try xml.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)

        let sportsCars = try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR WHERE Z_ENT = 2")
        XCTAssertNotEqual(sportsCars, "0")
        XCTAssertEqual(try CLI.run(["count", store, "SportsCar", "--model", model.path]).stdout, sportsCars + "\n")
        XCTAssertEqual(try CLI.run(["count", store, "Tag", "--model", model.path]).stdout,
                       try SQLiteShell.read(store, "SELECT count(*) FROM ZTAG") + "\n")
        let bike = try CLI.run(["count", store, "Bike", "--model", model.path])
        XCTAssertEqual(bike.status, 1)
        XCTAssertEqual(bike.stderr, "cdinspect: error: the model's entity Bike has no table in the store (ZBIKE is missing): "
                       + "the model is not the one the store was written with\n")
    }

    func testEveryFixtureOpensWithEveryFormat() throws {
        for relative in try Fixtures.stores {
            let store = try Fixtures.copy(relative, into: folder.appendingPathComponent(UUID().uuidString, isDirectory: true).creatingDirectory())
            for command in ["info", "entities", "schema"] {
                for format in ["table", "json", "csv", "line"] {
                    let result = try CLI.run([command, store.path, "--format", format])
                    XCTAssertEqual(result.status, 0, "\(command) \(relative) \(format): \(result.stderr)")
                    XCTAssertEqual(result.stderr, "", "\(command) \(relative) \(format)")
                    XCTAssertFalse(result.stdout.isEmpty)
                }
            }
        }
    }

    /// Every model file among the fixtures reads, with the entities, attributes and
    /// relationships a plain text search finds in it.
    func testEveryFixtureModelFileReads() throws {
        let folder = try Fixtures.directory
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: folder.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix("__contents") }
        XCTAssertGreaterThanOrEqual(files.count, 10)
        for file in files {
            let path = folder.appendingPathComponent(file).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let model = try XcdatamodelReader.model(atPath: path)
            let names = text.components(separatedBy: "<entity name=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
            XCTAssertEqual(model.entities.map(\.name).sorted(), names.sorted(), file)
            let properties = model.entities.flatMap(\.properties)
            XCTAssertEqual(properties.filter { if case .attribute = $0 { true } else { false } }.count,
                           text.components(separatedBy: "<attribute ").count - 1, file)
            XCTAssertEqual(properties.filter { if case .relationship = $0 { true } else { false } }.count,
                           text.components(separatedBy: "<relationship ").count - 1, file)
        }
    }
}

extension URL {
    func creatingDirectory() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}

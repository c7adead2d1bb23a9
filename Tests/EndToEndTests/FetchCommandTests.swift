import Foundation
import GRDB
import ManagedStore
import XCTest

/// fetch, count and explain through the built binary, on example stores the tests write.
final class FetchCommandTests: ExampleStoreTestCase {
    func run(_ arguments: [String], stdin: String? = nil) throws -> CLI.Result {
        try CLI.run(arguments, stdin: stdin)
    }

    /// Values with quotes, `%`, `*`, SQL and NUL bytes match themselves and nothing else.
    func testAwkwardValuesMatchLiterally() throws {
        let awkward = ["O'Brien", "say \"hi\"", "100%", "a*b", "x'; DROP TABLE ZPERSON; --", "nul\u{0}byte", "back\\slash", "_under%"]
        let path = folder.appendingPathComponent("Awkward.sqlite").path
        let model = try XcdatamodelReader.model(atPath: Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path)
        try StoreCreator.create(at: path, model: model)
        try StoreLoader.load(path) { loader in
            for name in awkward + ["O", "100", "ab", "x", "nul", "say"] { try loader.insert("Person", ["name": name]) }
        }
        // GRDB binds text as a C string; write the NUL byte with SQL so the row really holds it.
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "UPDATE ZPERSON SET ZNAME = CAST(x'6E756C0062797465' AS TEXT) WHERE Z_PK = (SELECT MIN(Z_PK) FROM ZPERSON WHERE ZNAME = 'nul')") }
        try queue.close()
        func quoted(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\u{0}", with: "\\u0000") + "\""
        }
        for name in awkward {
            // In a LIKE pattern `*`, `?` and `\` are special; escaped, they match themselves.
            let pattern = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "*", with: "\\*")
            for (predicate, value) in [("name == %@", name), ("name LIKE %@", pattern), ("name BEGINSWITH %@", name), ("name IN {%@}", name)] {
                let result = try run(["count", path, "Person", "--where", predicate, "--arg", quoted(value)])
                XCTAssertEqual(result.status, 0, "\(predicate) \(value): \(result.stderr)")
                XCTAssertEqual(result.stdout, "1\n", "\(predicate) with \(value.debugDescription)")
            }
        }
        XCTAssertEqual(try run(["count", path, "Person", "--where", "name LIKE 'a*b'"]).stdout, "2\n", "unescaped, * is a wildcard")
        XCTAssertEqual(try run(["count", path, "Person"]).stdout, "\(awkward.count + 6)\n", "the table is still there")
    }

    func testFetchJSONShape() throws {
        let result = try run(["fetch", store, "Car", "--where", "owner.name == 'dave1'", "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let objects = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(objects.count, 1)
        let car = objects[0]
        XCTAssertEqual(car["objectID"] as? String, "x-coredata://5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F/SportsCar/p2")
        XCTAssertEqual(car["owner"] as? String, "x-coredata://5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F/Person/p2")
        XCTAssertEqual(Set(car.keys), ["objectID", "name", "plate", "year", "owner"])
        let people = try JSONSerialization.jsonObject(with: Data(try run(["fetch", store, "Person", "--where", "name == 'dave3'", "--format", "json"]).stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(people.first?["birthday"] as? String, "1978-04-08T09:38:37Z")
        XCTAssertEqual(people.first?["photo"] as? String, "iVBORw==")
        XCTAssertEqual(people.first?["isActive"] as? Bool, true)
    }

    func testSortLimitOffsetKeysAndResultTypes() throws {
        let names = try run(["fetch", store, "Person", "--sort", "age:desc", "--sort", "name", "--limit", "3", "--offset", "1",
                             "--keys", "name,age", "--as", "dicts", "--format", "csv"])
        XCTAssertEqual(names.stdout, "name,age\ndave29,76\ndave41,76\ndave44,74\n")
        let ids = try run(["fetch", store, "Tag", "--as", "ids", "--format", "csv", "--sort", "name"])
        XCTAssertEqual(ids.stdout.split(separator: "\n").count, 5)
        XCTAssertTrue(ids.stdout.hasPrefix("objectID\nx-coredata://5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F/Tag/p"))
        XCTAssertEqual(try run(["fetch", store, "SportsCar", "--as", "count"]).stdout, "13\n")
        XCTAssertEqual(try run(["count", store, "Car", "--format", "json"]).stdout, "{\"count\": 50}\n")
        // A batched fetch returns what an unbatched one does, in the same order.
        let plain = try run(["fetch", store, "Car", "--sort", "year", "--sort", "plate", "--format", "csv"])
        let batched = try run(["fetch", store, "Car", "--sort", "year", "--sort", "plate", "--format", "csv", "--batch-size", "7"])
        XCTAssertEqual(plain.stdout, batched.stdout)
        XCTAssertEqual(plain.stdout.split(separator: "\n").count, 51)
    }

    func testWhereFormInSessionsAndErrors() throws {
        let script = "count Person where name BEGINSWITH 'dave1' AND age > 0\nformat csv\nfetch Tag where name IN {'work', 'gym'}\n"
        let result = try run([store], stdin: script)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("11\nobjectID,name\n"), result.stdout)
        let bad = try run([store], stdin: "count Person\ncount Person where name LIKEx 'a'\ncount Person\n")
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stdout, "50\n")
        XCTAssertEqual(bad.stderr, "cdinspect: error: line 2: predicate syntax error at column 6: expected a comparison operator (==, !=, <, >, IN, LIKE, …), found 'LIKEx'\n  name LIKEx 'a'\n       ^\n")
        let toMany = try run(["count", store, "Person", "--where", "cars.year > 2000"])
        XCTAssertEqual(toMany.status, 1)
        XCTAssertTrue(toMany.stderr.contains("to-many key not allowed here"))
        let all = try run(["count", store, "Person", "--where", "ALL cars.year > 2000"])
        XCTAssertEqual(all.status, 0)
        XCTAssertTrue(all.stderr.contains("warning: Core Data's SQLite store rejects ALL"), all.stderr)
        XCTAssertEqual(try run(["fetch", store, "Person", "--sort", "cars"]).status, 1)
        XCTAssertEqual(try run(["fetch", store, "Person", "--as", "rows"]).status, 64)
    }

    func testExplainShowsSQLAndBinds() throws {
        let result = try run(["explain", store, "Person", "--where", "ANY tags.name ==[c] %@ AND age > %d", "--arg", "\"Work\"", "--arg", "30"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, """
            SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZAGE, t0.ZBALANCE, t0.ZBIRTHDAY, t0.ZHOMEPAGE, t0.ZID, t0.ZISACTIVE, t0.ZNAME, t0.ZPHOTO, t0.ZSCORE FROM ZPERSON t0 WHERE (EXISTS (SELECT 1 FROM Z_3TAGS t2 JOIN ZTAG t1 ON t1.Z_PK = t2.Z_4TAGS WHERE t2.Z_3PEOPLE = t0.Z_PK AND (cdi_fold(t1.ZNAME, 1) = ?))) AND (t0.ZAGE > ?)
              bind[0] = "work"
              bind[1] = 30

            """)
        let byte = try Data(contentsOf: URL(fileURLWithPath: store))
        _ = try run(["fetch", store, "Person", "--where", "name MATCHES 'dave[0-9]+'"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), byte, "a fetch changes nothing on disk")
    }
}

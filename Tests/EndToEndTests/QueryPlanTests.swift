import Foundation
import XCTest

/// `explain --plan`: SQLite's plan in the model's terms, the verdict, and the index advice,
/// which agrees with the sqlite3 shell's `.expert`; nothing of the store changes.
final class QueryPlanTests: ExampleStoreTestCase {
    func plan(_ entity: String, _ predicate: String, _ extra: [String] = [], store: String? = nil) throws -> [String: Any] {
        try XCTUnwrap(try CLI.json(["explain", store ?? self.store, entity, "--where", predicate, "--plan", "--format", "json"] + extra) as? [String: Any])
    }

    static func steps(_ plan: Any?) -> [String] {
        ((plan as? [String: Any])?["steps"] as? [[String: Any]] ?? []).compactMap { $0["step"] as? String }
    }

    func testThePlanIsSaidInTheModelsTerms() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        // Without a fetch index: a scan, its verdict, and the index that makes it a search.
        let scan = try plan("Person", "name == \"dave7\"")
        XCTAssertEqual(Self.steps(scan["plan"]), ["SCAN Person"])
        XCTAssertEqual((scan["plan"] as? [String: Any])?["verdict"] as? String, "reads every Person row (50)")
        let advice = try XCTUnwrap(scan["advice"] as? [String: Any])
        let index = try XCTUnwrap((advice["indexes"] as? [[String: Any]])?.first)
        XCTAssertEqual(index["properties"] as? [String], ["name"])
        XCTAssertEqual(index["swiftData"] as? String, "#Index<Person>([\\.name])")
        XCTAssertEqual(index["fetchIndex"] as? String, """
            <fetchIndex name="byNameIndex">
                <fetchIndexElement property="name" type="Binary" order="ascending"/>
            </fetchIndex>
            """)
        XCTAssertEqual(index["createIndex"] as? String, "CREATE INDEX Z_Person_byNameIndex ON ZPERSON (ZNAME COLLATE BINARY ASC)")
        XCTAssertEqual(Self.steps(advice["plan"]), ["SEARCH Person USING INDEX Z_Person_byNameIndex (name=?)"])

        // With that fetch index, as Core Data creates it: a search, by name, and no advice.
        let indexed = folder.appendingPathComponent("Indexed.sqlite").path
        try FileManager.default.copyItem(atPath: store, toPath: indexed)
        try SQLiteShell.run(indexed, index["createIndex"] as? String ?? "")
        let search = try plan("Person", "name == \"dave7\"", store: indexed)
        XCTAssertEqual(Self.steps(search["plan"]), ["SEARCH Person USING INDEX Z_Person_byNameIndex (name=?)"])
        XCTAssertTrue(search["advice"] is NSNull)
        XCTAssertEqual((search["plan"] as? [String: Any])?["verdict"] as? String, "searches Person by Z_Person_byNameIndex; reads only the rows it needs")

        // A sort in a temporary B-tree, and the two-column index that spares it.
        let sorted = try plan("Person", "age == 42", ["--sort", "birthday"])
        XCTAssertEqual(Self.steps(sorted["plan"]), ["SCAN Person", "USE TEMP B-TREE FOR ORDER BY"])
        let both = try XCTUnwrap(((sorted["advice"] as? [String: Any])?["indexes"] as? [[String: Any]])?.first)
        XCTAssertEqual(both["properties"] as? [String], ["age", "birthday"])
        XCTAssertFalse(Self.steps((sorted["advice"] as? [String: Any])?["plan"]).contains { $0.contains("TEMP B-TREE") })

        // A to-many's correlated subquery names the relationship; a to-one key path reads the other table by its key.
        let subquery = try plan("Person", "ANY cars.year > 2000")
        XCTAssertTrue(Self.steps(subquery["plan"]).contains("CORRELATED SCALAR SUBQUERY 1: for each Person row, over its cars (Car)"), "\(subquery)")
        XCTAssertTrue(Self.steps(subquery["plan"]).contains("SEARCH Car USING INDEX ZCAR_ZOWNER_INDEX (owner=?)"), "\(subquery)")

        // Measured on a copy: both times, and the store as it was.
        let tried = try plan("Person", "name == \"dave7\"", ["--try"])
        let timing = try XCTUnwrap((tried["advice"] as? [String: Any])?["try"] as? [String: Any])
        XCTAssertNotNil(timing["beforeMilliseconds"] as? Double)
        XCTAssertNotNil(timing["afterMilliseconds"] as? Double)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'Z_Person_by%'"), "0")
        let alone = try CLI.run(["explain", store, "Person", "--try"])
        XCTAssertEqual(alone.status, 64)
        XCTAssertEqual(alone.stderr, "cdinspect: error: --try measures the advised index: give --plan too\n")
        // The people's face: the plan under the SQL, then the advice.
        let text = try CLI.run(["explain", store, "Person", "--where", "name == \"dave7\"", "--plan"]).stdout
        XCTAssertTrue(text.contains("\nplan:\n  SCAN Person\nPerson: 50 rows\nverdict: reads every Person row (50)\nadvice: an index on Person (name)\n"), text)
    }

    /// Thirty-three fetches over the example store and a larger one: the advised indexes are the ones
    /// the sqlite3 shell's `.expert` suggests for the same SQL, table and columns alike.
    func testAdviceIsWhatSQLiteExpertSuggests() throws {
        let predicates: [(String, String, [String])] = [
            ("Person", "name == \"dave7\"", []), ("Person", "age == 42", []), ("Person", "age > 30", []),
            ("Person", "age == 42", ["--sort", "birthday"]), ("Person", "age > 30 AND name == \"dave3\"", []),
            ("Person", "name BEGINSWITH \"dave1\"", []), ("Person", "isActive == YES AND age < 20", []), ("Person", "score > 50.5", []),
            ("Person", "birthday > CAST(0, \"NSDate\")", []), ("Person", "age == 30 OR age == 40", []), ("Person", "age IN {1, 2, 3}", []),
            ("Person", "name == \"x\"", ["--sort", "age"]), ("Person", "age BETWEEN {20, 30}", []), ("Person", "homepage == nil", []),
            ("Person", "TRUEPREDICATE", ["--sort", "name"]), ("Person", "TRUEPREDICATE", ["--sort", "age:desc"]), ("Person", "age > 10", ["--sort", "name"]),
            ("Car", "year == 2004", []), ("Car", "year > 2000 AND name == \"Civic\"", []), ("Car", "owner.name == \"dave3\"", []),
            ("Car", "owner.age > 70", []), ("Car", "plate == \"CD-000001\"", []), ("Car", "owner == nil", []),
            ("Car", "name == \"Mustang\"", ["--sort", "year"]), ("Tag", "name == \"work\"", []), ("Tag", "ANY people.age > 60", []),
            ("Person", "ANY cars.year > 2000", []), ("Person", "ANY tags.name == \"work\"", []), ("Person", "cars.@count > 1", []),
            ("Person", "balance < 100 AND age == 20", []),
            // Terms joined by OR: an index on each side, used as a multi-index OR.
            ("Person", "name == \"dave3\" OR age == 40", []), ("Person", "age > 70 OR score < 10", []),
            ("Car", "year == 2004 OR plate == \"CD-000001\"", []),
        ]
        XCTAssertEqual(predicates.count, 33)
        let largerFolder = folder.appendingPathComponent("larger")
        try FileManager.default.createDirectory(at: largerFolder, withIntermediateDirectories: true)
        let larger = try Fixtures.exampleStore(in: largerFolder, people: 5000).path
        for store in [self.store!, larger] {
            for (entity, predicate, extra) in predicates {
                let answer = try plan(entity, predicate, extra, store: store)
                let ours = ((answer["advice"] as? [String: Any])?["indexes"] as? [[String: Any]] ?? []).map { index -> String in
                    let columns = zip(index["columns"] as? [String] ?? [], index["descending"] as? [Bool] ?? []).map { $0 + ($1 ? " DESC" : "") }
                    return "\(index["table"] ?? "")(\(columns.joined(separator: ", ")))"
                }
                let expert = try CLI.run([store], stdin: ".expert\n\(answer["sql"] as? String ?? "");\n", executable: URL(fileURLWithPath: "/usr/bin/sqlite3"))
                let pattern = try NSRegularExpression(pattern: #"CREATE INDEX \S+ ON (\w+)\(([^)]*)\)"#)
                let theirs = pattern.matches(in: expert.stdout, range: NSRange(expert.stdout.startIndex..., in: expert.stdout)).compactMap { match -> String? in
                    guard let table = Range(match.range(at: 1), in: expert.stdout), let columns = Range(match.range(at: 2), in: expert.stdout) else { return nil }
                    return "\(expert.stdout[table])(\(expert.stdout[columns]))"
                }
                XCTAssertEqual(ours.sorted(), theirs.sorted(), "\(URL(fileURLWithPath: store).lastPathComponent) \(entity) \(predicate) \(extra): \(expert.stdout)")
            }
        }
    }
}

import Foundation
import XCTest

/// Swift predicates through the built binary: each Swift form answers what its NSPredicate
/// twin answers, with the same SQL, on the example store and on a SwiftData fixture; explain
/// writes the code to paste; every command that takes a predicate takes Swift.
final class SwiftPredicateTests: XCTestCase {
    /// A Swift form, its NSPredicate twin, and whether both make the very same SQL.
    typealias Twin = (swift: String, ns: String, sameSQL: Bool)

    static let exampleTwins: [(entity: String, twin: Twin)] = [
        ("Person", ("#Predicate<Person> { $0.age! > 30 && $0.name.starts(with: \"A\") }", "age > 30 AND name BEGINSWITH \"A\"", true)),
        ("Person", ("{ person in person.age != nil && person.age! >= 40 || person.name == \"Ann\" }", "age >= 40 OR name == \"Ann\"", true)),
        ("Person", ("{ !$0.isActive }", "NOT isActive == YES", true)),
        ("Person", ("{ $0.birthday == nil }", "birthday == nil", true)),
        ("Person", ("{ ($0.score ?? 0) > 50 }", "score > 50", false)),
        ("Person", ("{ $0.name.localizedStandardContains(\"an\") }", "name CONTAINS[cd] \"an\"", true)),
        ("Person", ("{ $0.name.lowercased().hasSuffix(\"a\") }", "name ENDSWITH[c] \"a\"", true)),
        ("Person", ("{ $0.name.caseInsensitiveCompare(\"ANN\") == .orderedSame }", "name ==[c] \"ANN\"", true)),
        ("Person", ("{ ($0.cars?.count ?? 0) >= 2 }", "cars.@count >= 2", true)),
        ("Person", ("{ $0.tags?.isEmpty == true }", "tags.@count == 0", true)),
        ("Person", ("{ $0.cars?.contains { $0.year! > 2015 } == true }", "ANY cars.year > 2015", true)),
        ("Person", ("{ p in p.cars?.contains(where: { c in c.year != nil && c.year! < 2000 && c.name != nil }) == true }",
                    "SUBQUERY(cars, $c, $c.year < 2000 AND $c.name != nil).@count > 0", true)),
        ("Person", ("{ ($0.cars?.filter { $0.year! > 2010 }.count ?? 0) > 1 }", "SUBQUERY(cars, $x1, $x1.year > 2010).@count > 1", true)),
        ("Person", ("{ [30, 31, 32].contains($0.age!) }", "age IN {30, 31, 32}", true)),
        ("Person", ("{ $0.birthday! < Date(timeIntervalSinceReferenceDate: -631152000) }", "birthday < CAST(-631152000, \"NSDate\")", true)),
        ("Person", ("{ $0.birthday! < Date.now }", "birthday < now()", false)),
        ("Person", ("{ $0.age! * 2 + 1 > 101 }", "age * 2 + 1 > 101", true)),
        ("Car", ("#Predicate<Car> { $0.owner?.name.starts(with: \"B\") == true }", "owner.name BEGINSWITH \"B\"", true)),
        ("Car", ("{ $0.owner == nil }", "owner == nil", true)),
    ]

    static let heritgTwins: [(entity: String, twin: Twin)] = [
        ("Person", ("#Predicate<Person> { $0.displayName.starts(with: \"A\") }", "displayName BEGINSWITH \"A\"", true)),
        ("Person", ("{ $0.genderRaw == .female }", "genderRaw == \"female\"", true)),
        ("Person", ("{ $0.birthDate == nil }", "birthDate == nil", true)),
        ("Person", ("{ $0.birthDate! < Date(timeIntervalSince1970: 400000000) }", "birthDate < CAST(-578307200, \"NSDate\")", true)),
        ("Person", ("{ $0.city.isEmpty }", "city == \"\"", true)),
        ("Person", ("{ !$0.displayName.isEmpty }", "NOT displayName == \"\"", true)),
        ("FamilyRelationship", ("{ $0.kindRaw == FamilyRelationship.Kind.partner.rawValue && $0.marriageDate != nil }",
                                "kindRaw == \"partner\" AND marriageDate != nil", true)),
    ]

    func assertTwins(_ twins: [(entity: String, twin: Twin)], store: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var counts: Set<String> = []
        for (entity, twin) in twins {
            let swift = try CLI.run(["count", store, entity, "--where", twin.swift])
            let ns = try CLI.run(["count", store, entity, "--where", twin.ns])
            XCTAssertEqual(swift.status, 0, "\(twin.swift): \(swift.stderr)", file: file, line: line)
            XCTAssertEqual(ns.status, 0, "\(twin.ns): \(ns.stderr)", file: file, line: line)
            XCTAssertEqual(swift.stdout, ns.stdout, "\(twin.swift) against \(twin.ns)", file: file, line: line)
            counts.insert(ns.stdout)
            guard twin.sameSQL else { continue }
            let swiftSQL = try CLI.run(["explain", store, entity, "--where", twin.swift])
            let nsSQL = try CLI.run(["explain", store, entity, "--where", twin.ns])
            XCTAssertEqual(swiftSQL.stdout, nsSQL.stdout, "\(twin.swift) against \(twin.ns)", file: file, line: line)
        }
        // The twins tell objects apart: their answers are not all one number.
        XCTAssertGreaterThan(counts.count, 1, file: file, line: line)
    }

    func testSwiftFormsAnswerAsTheirTwinsOnTheExampleStore() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        try assertTwins(Self.exampleTwins, store: store)
    }

    func testSwiftFormsAnswerAsTheirTwinsOnASwiftDataStore() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.copy("Hamanto-Studio_heritg/swiftdata-1.0.0.store", into: folder).path
        try assertTwins(Self.heritgTwins, store: store)
        let fetched = try CLI.run(["fetch", store, "Person", "--where", "{ $0.genderRaw == .female }", "--keys", "displayName"])
        XCTAssertTrue(fetched.stdout.contains("Ayu") && !fetched.stdout.contains("Bima"), fetched.stdout + fetched.stderr)
    }

    func testCapturedNamesTakeTheirValuesFromTheCommandLine() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        let expected = try CLI.run(["count", store, "Person", "--where", "age > 40 AND name BEGINSWITH \"A\""]).stdout
        let given = try CLI.run(["count", store, "Person", "--where", "{ $0.age! > minAge && $0.name.starts(with: prefix) }",
                                 "--var", "minAge=40", "--arg", "prefix=\"A\""])
        XCTAssertEqual(given.status, 0, given.stderr)
        XCTAssertEqual(given.stdout, expected)
        let missing = try CLI.run(["count", store, "Person", "--where", "{ $0.age! > minAge }"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("minAge is not given a value (give one with --var minAge=VALUE)"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("^"), missing.stderr)
        let badValue = try CLI.run(["count", store, "Person", "--where", "{ $0.age! > minAge }", "--var", "minAge=$0"])
        XCTAssertEqual(badValue.status, 1)
        XCTAssertTrue(badValue.stderr.contains("not a Swift literal"), badValue.stderr)
    }

    func testErrorsPointAtTheConstruct() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        let result = try CLI.run(["fetch", store, "Person", "--where", "#Predicate<Person> { $0.name.count > 3 }"])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stderr, """
            cdinspect: error: predicate error at column 29: String.count has no SQL translation in SwiftData; compare the string itself
              #Predicate<Person> { $0.name.count > 3 }
                                          ^

            """)
        let wrong = try CLI.run(["count", store, "Person", "--where", "#Predicate<Car> { $0.year! > 3 }"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("the predicate is for Car, and this request fetches Person"), wrong.stderr)
        let unknown = try CLI.run(["count", store, "Person", "--where", "{ $0.shoeSize > 3 }"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("shoeSize") && unknown.stderr.contains("^"), unknown.stderr)
    }

    func testEveryCommandThatTakesAPredicateTakesSwift() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        let old = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZAGE > 70"))!
        XCTAssertGreaterThan(old, 0)
        let updated = try CLI.run(["batch-update", store, "Person", "--set", "score=1", "--where", "{ $0.age! > 70 }", "--result", "count"])
        XCTAssertEqual(updated.status, 0, updated.stderr)
        XCTAssertEqual(updated.stdout, "\(old)\n")
        let fetched = try CLI.run(["fetch", store, "Person", "--where", "{ $0.age! > 70 }", "--as", "count"])
        XCTAssertEqual(fetched.stdout, "\(old)\n", fetched.stderr)
        let script = try CLI.run(["session", store], stdin: "count Person where { $0.age! > 70 }\n")
        XCTAssertTrue(script.stdout.contains("\(old)\n"), script.stdout + script.stderr)
        let deleted = try CLI.run(["batch-delete", store, "Car", "--where", "{ $0.owner?.age! > 70 }", "--result", "count"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZCAR JOIN ZPERSON ON ZCAR.ZOWNER = ZPERSON.Z_PK WHERE ZPERSON.ZAGE > 70")), 0)
    }

    func testExplainWritesTheCodeToPaste() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        let predicate = "age > 30 AND name BEGINSWITH \"A\""
        let swift = try CLI.run(["explain", store, "Person", "--where", predicate, "--as", "swift"])
        XCTAssertEqual(swift.stdout, "#Predicate<Person> { person in\n    person.age != nil && person.age! > 30 && person.name.starts(with: \"A\")\n}\n")
        // From either syntax to either syntax.
        let ns = try CLI.run(["explain", store, "Person", "--where", swift.stdout, "--as", "nspredicate"])
        XCTAssertEqual(ns.stdout, "NSPredicate(format: \"age > 30 AND name BEGINSWITH %@\", \"A\")\n", ns.stderr)
        let descriptor = try CLI.run(["explain", store, "Person", "--where", predicate, "--sort", "name", "--limit", "5", "--as", "fetch-descriptor"])
        XCTAssertTrue(descriptor.stdout.hasPrefix("var descriptor = FetchDescriptor<Person>(\n    predicate: #Predicate<Person> { person in"), descriptor.stdout)
        XCTAssertTrue(descriptor.stdout.contains("sortBy: [SortDescriptor(\\.name)]\n)\ndescriptor.fetchLimit = 5\n"), descriptor.stdout)
        let request = try CLI.run(["explain", store, "Person", "--where", predicate, "--as", "fetch-request", "--format", "json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(request.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["as"] as? String, "fetch-request")
        XCTAssertTrue((json["code"] as? String)?.hasPrefix("let request = NSFetchRequest<Person>(entityName: \"Person\")\n") == true)

        let like = try CLI.run(["explain", store, "Person", "--where", "name LIKE \"A*\"", "--as", "swift"])
        XCTAssertEqual(like.status, 1)
        XCTAssertEqual(like.stderr, "cdinspect: error: LIKE has no #Predicate form: SwiftData translates no wildcard match; use contains, starts(with:) or hasSuffix\n")
        let bad = try CLI.run(["explain", store, "Person", "--as", "kotlin"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("swift, fetch-descriptor, nspredicate, fetch-request"), bad.stderr)
    }

    func testTheMCPExplainToolWritesCode() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        let server = try MCPServerTests.Server(store)
        _ = try server.send("initialize", ["protocolVersion": "2025-06-18", "capabilities": [String: Any](),
                                           "clientInfo": ["name": "tests", "version": "1"]])
        try server.notify("notifications/initialized")
        let code = try XCTUnwrap(try server.json("explain", ["entity": "Person", "predicate": "{ $0.age! >= 70 }", "as": "nspredicate"]) as? [String: Any])
        XCTAssertEqual(code["code"] as? String, "NSPredicate(format: \"age >= 70\")")
        let count = try XCTUnwrap(try server.json("count", ["entity": "Person", "predicate": "#Predicate<Person> { $0.age! >= 70 }"]) as? [String: Any])
        XCTAssertEqual(count["count"] as? Int, Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZAGE >= 70")))
        let refused = try server.call("explain", ["entity": "Person", "predicate": "name MATCHES \"A.*\"", "as": "swift"])
        XCTAssertTrue(refused.isError)
        XCTAssertTrue(refused.text.contains("MATCHES has no #Predicate form"), refused.text)
        XCTAssertEqual(server.stop(), 0)
    }
}

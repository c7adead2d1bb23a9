import ManagedStore
import XCTest

/// Predicates written back as code: Swift that reads back as the same predicate, and the
/// constructs with no #Predicate form refused by name.
final class PredicateCodeTests: XCTestCase {
    var model: ManagedObjectModel { SwiftPredicateReaderTests.model }

    func swift(_ format: String, entity: String = "Person") throws -> String {
        try SwiftPredicateWriter.predicate(try PredicateParser.parse(format), entity: entity, model: model)
    }

    /// An object as key-value coding answers for it: attributes, a to-one object, or a
    /// to-many list. Never changed once made.
    final class Object: PredicateEvaluable, @unchecked Sendable {
        let fields: [String: EvaluatedValue]
        init(_ fields: [String: EvaluatedValue]) { self.fields = fields }
        func value(forKey key: String) throws -> EvaluatedValue { fields[key] ?? .null }
        var evaluationIdentity: AnyHashable { ObjectIdentifier(self) }
    }

    /// People with nil and set values, with and without cars.
    static let people: [Object] = {
        func car(_ year: Int64?, _ name: String?) -> EvaluatedValue {
            .object(Object(["year": year.map { .value(.integer($0)) } ?? .null, "name": name.map { .value(.string($0)) } ?? .null]))
        }
        func person(_ age: Int64?, _ name: String, _ cars: [EvaluatedValue], nickname: String? = nil, birthday: Double? = nil) -> Object {
            Object(["age": age.map { .value(.integer($0)) } ?? .null, "name": .value(.string(name)), "cars": .collection(cars),
                    "nickname": nickname.map { .value(.string($0)) } ?? .null, "isActive": .value(.bool(age ?? 0 > 20)),
                    "birthday": birthday.map { .value(.date($0)) } ?? .null])
        }
        return [person(nil, "dan", []), person(40, "Ab", [car(2001, "x"), car(nil, nil)], nickname: "q\"uote\n", birthday: 5),
                person(3, "dora", [car(1999, "y")], birthday: 20), person(1, "ann", [car(2005, "x"), car(2010, "z")], nickname: "A")]
    }()

    /// The Swift written for `format` reads back as a predicate that answers as the original
    /// for every sample person.
    func assertRoundTrip(_ format: String, entity: String = "Person", file: StaticString = #filePath, line: UInt = #line) {
        do {
            let original = try PredicateParser.parse(format)
            let code = try SwiftPredicateWriter.predicate(original, entity: entity, model: model)
            let back = try SwiftPredicateReader.parse(code, entity: entity, model: model)
            let evaluator = PredicateEvaluator()
            var matched = 0
            for (i, person) in Self.people.enumerated() {
                let expected = try evaluator.evaluate(original, with: person)
                XCTAssertEqual(try evaluator.evaluate(back, with: person), expected, "\(format) → \(code), person \(i)", file: file, line: line)
                if expected { matched += 1 }
            }
            // Each sample predicate tells the people apart, so agreement means something.
            XCTAssertTrue(matched > 0 && matched < Self.people.count, "\(format) matches \(matched) people", file: file, line: line)
        } catch {
            XCTFail("\(format): \(error)", file: file, line: line)
        }
    }

    func testSwiftSpellings() throws {
        XCTAssertEqual(try swift("age > 30 AND name BEGINSWITH \"d\""),
                       "#Predicate<Person> { person in\n    person.age != nil && person.age! > 30 && person.name.starts(with: \"d\")\n}")
        XCTAssertEqual(try swift("ANY cars.year > 2000"),
                       "#Predicate<Person> { person in\n    person.cars?.contains { car in (car.year != nil && car.year! > 2000) } == true\n}")
        XCTAssertEqual(try swift("name CONTAINS[cd] \"é\" OR name ==[c] \"Ann\""),
                       "#Predicate<Person> { person in\n    person.name.localizedStandardContains(\"é\") || person.name.caseInsensitiveCompare(\"Ann\") == .orderedSame\n}")
        XCTAssertEqual(try swift("owner.name == nil", entity: "Car"), "#Predicate<Car> { car in\n    car.owner?.name == nil\n}")
        // Case folding against nil folds nothing: a plain nil test, either way round.
        XCTAssertEqual(try swift("nickname ==[c] nil"), "#Predicate<Person> { person in\n    person.nickname == nil\n}")
        XCTAssertEqual(try swift("nil !=[c] nickname"), "#Predicate<Person> { person in\n    nil != person.nickname\n}")
        XCTAssertEqual(try swift("birthday < CAST(10, \"NSDate\") AND birthday > now()"),
                       "#Predicate<Person> { person in\n    person.birthday != nil && person.birthday! < Date(timeIntervalSinceReferenceDate: 10.0) && person.birthday! > Date.now\n}")
    }

    func testWrittenSwiftReadsBack() {
        for format in ["age > 30 OR name BEGINSWITH \"d\"", "ANY cars.year > 2000", "ALL cars.year > 2000", "NONE cars.name == \"x\"",
                       "cars.@count == 0", "SUBQUERY(cars, $c, $c.year > 2000 AND $c.name == \"x\").@count > 0",
                       "name CONTAINS[c] \"B\"", "age IN {1, 3}", "age BETWEEN {1, 5}", "NOT (isActive == YES OR nickname == nil)",
                       "nickname ENDSWITH \"uote\\n\"", "(age + 1) * 2 > 7", "-age < -2", "birthday < CAST(10, \"NSDate\")",
                       "nickname != \"A\"", "name ==[c] \"AB\"", "isActive == NO", "nickname ==[c] nil", "nil !=[cd] nickname"] {
            assertRoundTrip(format)
        }
    }

    func testConstructsWithoutASwiftFormAreRefusedByName() {
        let refused: [(String, String)] = [
            ("name LIKE \"a*\"", "LIKE"), ("name MATCHES \"a.*\"", "MATCHES"), ("cars.@avg.year > 3", "@avg"),
            ("cars.@sum.year > 3", "@sum"), ("name BEGINSWITH[cd] \"a\"", "BEGINSWITH[cd]"), ("age ** 2 > 3", "**"),
            ("abs(age) > 3", "abs()"), ("FUNCTION(name, 'length') > 3", "FUNCTION"), ("cars[FIRST].year > 1", "index"),
            ("age == \"30\"", "attribute compared with a string"), ("name < 3", "String attribute compared with a number"),
        ]
        for (format, construct) in refused {
            XCTAssertThrowsError(try swift(format), format) { error in
                guard let e = error as? PredicateCodeError else { return XCTFail("\(format): \(error)") }
                XCTAssertTrue(e.construct.contains(construct), "\(format): \(e)")
                XCTAssertFalse(e.description.contains("\n"), "\(format): \(e)")
            }
        }
    }

    func testFetchDescriptorAndFetchRequest() throws {
        let request = FetchRequest(entityName: "Person", predicate: try PredicateParser.parse("name == \"Ann\""), predicateText: "",
                                   sortDescriptors: [.init(keyPath: "name"), .init(keyPath: "age", ascending: false)], fetchLimit: 10, fetchOffset: 5)
        XCTAssertEqual(try FetchCode.write(request, as: .fetchDescriptor, model: model), """
            var descriptor = FetchDescriptor<Person>(
                predicate: #Predicate<Person> { person in
                    person.name == "Ann"
                },
                sortBy: [SortDescriptor(\\.name), SortDescriptor(\\.age, order: .reverse)]
            )
            descriptor.fetchLimit = 10
            descriptor.fetchOffset = 5
            """)
        XCTAssertEqual(try FetchCode.write(request, as: .fetchRequest, model: model), """
            let request = NSFetchRequest<Person>(entityName: "Person")
            request.predicate = NSPredicate(format: "name == %@", "Ann")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "age", ascending: false)]
            request.fetchLimit = 10
            request.fetchOffset = 5
            """)
        XCTAssertEqual(FetchCode.nsPredicate(try PredicateParser.parse("age > 3 AND birthday < CAST(5, \"NSDate\") AND name LIKE \"a*\"")),
                       "NSPredicate(format: \"age > 3 AND birthday < %@ AND name LIKE %@\", Date(timeIntervalSinceReferenceDate: 5.0) as NSDate, \"a*\")")
    }

    func testNSPredicateWriterReadsBackAsTheSamePredicate() throws {
        for format in ["a == 1 AND (b == 2 OR NOT c == 3)", "ANY x.y BEGINSWITH[cd] \"q\"", "SUBQUERY(xs, $x, $x.a > 1).@count > 0",
                       "#size == 1", "a IN {1, \"b\", nil, YES}", "FUNCTION(a, 'length') > 1", "a[FIRST] == 1", "d < CAST(1.5, \"NSDate\")",
                       "-a + 2 > 1", "TRUEPREDICATE", "name == \"a\\\"b\\\\c\""] {
            let once = NSPredicateWriter.format(try PredicateParser.parse(format))
            XCTAssertEqual(NSPredicateWriter.format(try PredicateParser.parse(once)), once, format)
        }
    }
}

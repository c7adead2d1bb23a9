import ManagedStore
import XCTest

/// The Swift predicate syntax, read as the NSPredicate it means: each construct is compared
/// with the NSPredicate a developer would write for it (both printed by NSPredicateWriter),
/// and each refusal names its construct with a caret under it.
final class SwiftPredicateReaderTests: XCTestCase {
    static let model: ManagedObjectModel = {
        let person = EntityDescription(name: "Person", properties: [
            .attribute(AttributeDescription(name: "age", type: .integer32)),
            .attribute(AttributeDescription(name: "name", type: .string, isOptional: false)),
            .attribute(AttributeDescription(name: "nickname", type: .string)),
            .attribute(AttributeDescription(name: "birthday", type: .date)),
            .attribute(AttributeDescription(name: "isActive", type: .boolean, isOptional: false)),
            .attribute(AttributeDescription(name: "kind", type: .string)),
            .attribute(AttributeDescription(name: "level", type: .integer64)),
            .relationship(RelationshipDescription(name: "cars", destinationEntityName: "Car", inverseName: "owner", maxCount: 0)),
        ])
        let car = EntityDescription(name: "Car", properties: [
            .attribute(AttributeDescription(name: "year", type: .integer16)),
            .attribute(AttributeDescription(name: "name", type: .string)),
            .relationship(RelationshipDescription(name: "owner", destinationEntityName: "Person", inverseName: "cars")),
        ])
        return ManagedObjectModel(entities: [person, car], source: .modelCache)
    }()

    func read(_ swift: String, entity: String = "Person", variables: [String: PredicateValue] = [:]) throws -> String {
        NSPredicateWriter.format(try SwiftPredicateReader.parse(swift, entity: entity, model: Self.model, variables: variables))
    }

    func assertReads(_ swift: String, as format: String, entity: String = "Person", variables: [String: PredicateValue] = [:],
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(SwiftPredicateReader.isSwift(swift), swift, file: file, line: line)
        do {
            let expected = NSPredicateWriter.format(try PredicateParser.parse(format))
            XCTAssertEqual(try read(swift, entity: entity, variables: variables), expected, swift, file: file, line: line)
        } catch {
            XCTFail("\(swift): \(error)", file: file, line: line)
        }
    }

    /// The error a Swift predicate is refused with; its message must contain `words`, and the
    /// caret must be at `column` (1-based) when one is given.
    func assertRefused(_ swift: String, _ words: String, column: Int? = nil, entity: String = "Person",
                       file: StaticString = #filePath, line: UInt = #line) {
        do {
            let read = try read(swift, entity: entity)
            XCTFail("read \(swift) as \(read)", file: file, line: line)
        } catch let e as PredicateFormatError {
            XCTAssertTrue(e.message.contains(words), "\(e.message) lacks \(words)", file: file, line: line)
            if let column { XCTAssertEqual(e.column, column, e.description, file: file, line: line) }
            XCTAssertTrue(e.description.contains("^"), file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }

    func testTheMacroAndBareClosuresAreSwift() {
        XCTAssertTrue(SwiftPredicateReader.isSwift("#Predicate<Person> { $0.age > 3 }"))
        XCTAssertTrue(SwiftPredicateReader.isSwift("  { $0.age > 3 }"))
        XCTAssertTrue(SwiftPredicateReader.isSwift("{ person in person.age > 3 }"))
        XCTAssertTrue(SwiftPredicateReader.isSwift("{ (person: Person) in person.age > 3 }"))
        XCTAssertFalse(SwiftPredicateReader.isSwift("{1, 2} CONTAINS age"))
        XCTAssertFalse(SwiftPredicateReader.isSwift("{ 'a', 'b' } CONTAINS name"))
        XCTAssertFalse(SwiftPredicateReader.isSwift("age > 3"))
    }

    func testComparisonsLogicAndArithmetic() {
        assertReads("#Predicate<Person> { $0.age > 30 && $0.name.starts(with: \"d\") }", as: "age > 30 AND name BEGINSWITH \"d\"")
        assertReads("{ person in person.age >= 30 || !(person.name == \"x\") }", as: "age >= 30 OR NOT name == \"x\"")
        assertReads("{ $0.age < 3 || $0.age <= 4 || $0.age != 5 }", as: "age < 3 OR age <= 4 OR age != 5")
        assertReads("{ $0.age + 1 > 2 * 3 - 4 / 2 }", as: "(age + 1) > ((2 * 3) - (4 / 2))")
        assertReads("{ -$0.age < -3 }", as: "-age < -3")
        assertReads("{ (p: Person) in p.age > 0 ? p.name == \"a\" : p.name == \"b\" }",
                    as: "(age > 0 AND name == \"a\") OR (NOT age > 0 AND name == \"b\")")
        assertReads("{ $0.isActive }", as: "isActive == YES")
        assertReads("{ !$0.isActive && true }", as: "NOT isActive == YES AND TRUEPREDICATE")
        assertReads("{ _ in false }", as: "FALSEPREDICATE")
        assertReads("{ $0.age > 30 } // older\n", as: "age > 30")
    }

    func testOptionals() {
        assertReads("{ $0.nickname == nil }", as: "nickname == nil")
        assertReads("{ $0.nickname != nil && $0.nickname!.contains(\"x\") }", as: "nickname CONTAINS \"x\"")
        assertReads("{ $0.age != nil && $0.age! > 30 }", as: "age > 30")
        assertReads("{ $0.nickname?.contains(\"x\") == true }", as: "nickname CONTAINS \"x\"")
        assertReads("{ ($0.nickname ?? \"\") == \"\" }", as: "nickname == nil OR nickname == \"\"")
        assertReads("{ ($0.age ?? 0) > 30 }", as: "NOT age == nil AND age > 30")
        assertReads("{ $0.owner?.name == \"x\" }", as: "owner.name == \"x\"", entity: "Car")
        assertReads("{ ($0.cars?.count ?? 0) > 2 }", as: "cars.@count > 2")
    }

    func testStringSearches() {
        assertReads("{ $0.name.contains(\"an\") }", as: "name CONTAINS \"an\"")
        assertReads("{ $0.name.localizedStandardContains(\"é\") }", as: "name CONTAINS[cd] \"é\"")
        assertReads("{ $0.name.hasPrefix(\"a\") || $0.name.hasSuffix(\"z\") }", as: "name BEGINSWITH \"a\" OR name ENDSWITH \"z\"")
        assertReads("{ $0.name.caseInsensitiveCompare(\"Ann\") == .orderedSame }", as: "name ==[c] \"Ann\"")
        assertReads("{ $0.name.lowercased() == \"ann\" }", as: "name ==[c] \"ann\"")
        assertReads("{ $0.name.lowercased().contains(\"an\") }", as: "name CONTAINS[c] \"an\"")
        assertReads("{ $0.name.isEmpty }", as: "name == \"\"")
    }

    func testCollections() {
        assertReads("{ $0.cars.count > 2 }", as: "cars.@count > 2")
        assertReads("{ $0.cars.isEmpty }", as: "cars.@count == 0")
        assertReads("{ $0.cars.contains { $0.year > 2000 } }", as: "ANY cars.year > 2000")
        assertReads("{ $0.cars.contains(where: { car in car.year > 2000 && car.name == \"x\" }) }",
                    as: "SUBQUERY(cars, $car, $car.year > 2000 AND $car.name == \"x\").@count > 0")
        assertReads("{ $0.cars.allSatisfy { $0.year > 2000 } }", as: "SUBQUERY(cars, $x1, NOT $x1.year > 2000).@count == 0")
        assertReads("{ $0.cars.filter { $0.year > 2000 }.count >= 2 }", as: "SUBQUERY(cars, $x1, $x1.year > 2000).@count >= 2")
        assertReads("{ $0.cars.filter { $0.year > 2000 }.isEmpty }", as: "SUBQUERY(cars, $x1, $x1.year > 2000).@count == 0")
        assertReads("{ [1, 2, 3].contains($0.age) }", as: "age IN {1, 2, 3}")
        assertReads("{ p in p.cars.contains { c in c.name == p.name } }", as: "SUBQUERY(cars, $c, $c.name == name).@count > 0")
    }

    func testDatesEnumsAndVariables() {
        assertReads("{ $0.birthday! < Date.now }", as: "birthday < now()")
        assertReads("{ $0.birthday! > Date(timeIntervalSinceReferenceDate: 100) }", as: "birthday > CAST(100, \"NSDate\")")
        assertReads("{ $0.birthday! > Date(timeIntervalSince1970: 978307300) }", as: "birthday > CAST(100, \"NSDate\")")
        assertReads("{ $0.kind == .hot }", as: "kind == \"hot\"")
        assertReads("{ $0.kind == Drink.Kind.hot.rawValue }", as: "kind == \"hot\"")
        assertReads("{ $0.age > minAge && $0.name == who }", as: "age > 30 AND name == \"Ann\"",
                    variables: ["minAge": .integer(30), "who": .string("Ann")])
        XCTAssertEqual(try SwiftPredicateReader.literal("[1, -2, \"x\", nil, true]"), .array([.integer(1), .integer(-2), .string("x"), .null, .bool(true)]))
        XCTAssertThrowsError(try SwiftPredicateReader.literal("$0.age"))
    }

    func testRefusalsNameTheConstructWithACaret() {
        assertRefused("{ $0.name.count > 3 }", "String.count", column: 10)
        assertRefused("{ $0.age % 2 == 0 }", "modulus:by:", column: 10)
        assertRefused("{ $0.level == .high }", "raw value of .high", column: 15)
        assertRefused("#Predicate<Car> { $0.year > 3 }", "the predicate is for Car", column: 12)
        assertRefused("#Predicate<Nobody> { $0.year > 3 }", "no entity or class named Nobody", column: 12)
        assertRefused("{ $0.cars.first == nil }", "first of a to-many", column: 10)
        assertRefused("{ $0.cars.name == \"x\" }", "through a to-many", column: 10)
        assertRefused("{ $0.name.localizedCompare(\"a\") == .orderedSame }", "localizedCompare", column: 10)
        assertRefused("{ $0.name.reversed() == \"a\" }", "reversed(…)", column: 10)
        assertRefused("{ $0 === $0 }", "identity", column: 6)
        assertRefused("{ 1 < $0.age < 3 }", "do not chain")
        assertRefused("{ let x = 1; return $0.age > x }", "'let' statements")
        assertRefused("{ $0.name == \"\\(x)\" }", "interpolation")
        assertRefused("{ $0.age > $1 }", "$1", column: 12)
        assertRefused("{ $0.name + \"a\" == \"ba\" }", "+ on strings")
        assertRefused("{ $0.cars == [] }", "compared as a whole", column: 5)
        assertRefused("{ $0.name.lowercased() == \"Ann\" }", "string constant of that case")
        assertRefused("{ $0.age > 3", "expected '}'", column: 1)
        assertRefused("#Predicate<Person> $0.age > 3", "closure")
        assertRefused("{ $0.age > Foo }", "Foo is a type")
        assertRefused("{ $0.name }", "Bool expression, and this is a String", column: 5)
        assertRefused("{ $0 }", "Bool expression", column: 3)
        assertRefused("{ $0.age! > \"x\" }", "compared with a string", column: 11)
        assertRefused("{ $0.name == 3 }", "compared with a number", column: 11)
        do {
            _ = try read("{ $0.age > minAge }")
            XCTFail("read without a value for minAge")
        } catch let e as PredicateFormatError {
            XCTAssertEqual(e.missing, .variable("minAge"))
            XCTAssertEqual(e.column, 12)
        } catch {
            XCTFail("\(error)")
        }
    }

    func testNestingTooDeepIsAnErrorNotACrash() {
        let deep = "{ " + String(repeating: "(", count: 5000) + "$0.age > 1" + String(repeating: ")", count: 5000) + " }"
        XCTAssertThrowsError(try read(deep))
        let chain = "{ $0.age > 1" + String(repeating: " && $0.age > 1", count: 3000) + " }"
        XCTAssertThrowsError(try read(chain))
    }
}

import Foundation
import ManagedStore
import StoreCreation
import XCTest

/// The SQL the compiler writes for the example model (Car ⊃ SportsCar, Person, Tag; Person.tags
/// many-to-many), checked against an empty store made from that model.
final class PredicateCompilerTests: XCTestCase {
    /// Set once in the class set-up, before any of its tests runs, and only read after.
    nonisolated(unsafe) static var store: PersistentStore!

    override class func setUp() {
        super.setUp()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdi-compiler-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("People.sqlite").path
        let model = try! XcdatamodelReader.model(atPath: root.appendingPathComponent("Examples/People.xcdatamodeld").path)
        try! StoreCreator.create(at: path, model: model)
        store = try! PersistentStore(path: path)
    }

    func sql(_ entity: String, _ predicate: String, _ args: [String] = []) throws -> CompiledPredicate {
        let parsed = try PredicateParser.parse(predicate, written: args)
        return try PredicateCompiler.compile(parsed, text: predicate, entity: try Self.store.entity(entity), mapping: Self.store.mapping)
    }

    func failure(_ entity: String, _ predicate: String) -> String {
        do {
            _ = try sql(entity, predicate)
            return "compiled"
        } catch let e as PredicateFormatError {
            return e.message
        } catch {
            return "\(error)"
        }
    }

    func testValuesAreBoundNeverSpliced() throws {
        let c = try sql("Person", "name == %@ AND age > 30", ["\"x'; DROP TABLE ZPERSON; --\""])
        XCTAssertEqual(c.condition.sql, "(t0.ZNAME = ?) AND (t0.ZAGE > ?)")
        XCTAssertEqual(c.condition.storedArguments, [.text("x'; DROP TABLE ZPERSON; --"), .integer(30)])
    }

    func testNullAndInequality() throws {
        XCTAssertEqual(try sql("Person", "name == nil").condition.sql, "t0.ZNAME IS NULL")
        XCTAssertEqual(try sql("Person", "nil != name").condition.sql, "t0.ZNAME IS NOT NULL")
        // `<>` drops NULL rows, as Core Data's store does.
        XCTAssertEqual(try sql("Person", "name != 'Bob'").condition.sql, "t0.ZNAME <> ?")
    }

    func testToOnePathsJoin() throws {
        let inner = try sql("Car", "owner.name == 'dave1'")
        XCTAssertEqual(inner.joins, " JOIN ZPERSON t1 ON t0.ZOWNER = t1.Z_PK")
        XCTAssertEqual(inner.condition.sql, "t1.ZNAME = ?")
        // Under OR the rows without an owner must survive the join.
        XCTAssertEqual(try sql("Car", "owner.name == 'dave1' OR year > 2000").joins, " LEFT OUTER JOIN ZPERSON t1 ON t0.ZOWNER = t1.Z_PK")
        XCTAssertEqual(try sql("Car", "owner == 'Person/p3'").condition.storedArguments, [.integer(3)])
    }

    func testToManyPaths() throws {
        XCTAssertEqual(try sql("Person", "ANY cars.year > 2000").condition.sql,
                       "EXISTS (SELECT 1 FROM ZCAR t1 WHERE t1.ZOWNER = t0.Z_PK AND (t1.ZYEAR > ?))")
        XCTAssertEqual(try sql("Person", "'work' IN tags.name").condition.sql,
                       "EXISTS (SELECT 1 FROM Z_3TAGS t2 JOIN ZTAG t1 ON t1.Z_PK = t2.Z_4TAGS WHERE t2.Z_3PEOPLE = t0.Z_PK AND (t1.ZNAME = ?))")
        XCTAssertEqual(try sql("Person", "cars.@count > 1").condition.sql,
                       "(SELECT COUNT(*) FROM ZCAR t1 WHERE t1.ZOWNER = t0.Z_PK) > ?")
        XCTAssertEqual(try sql("Person", "SUBQUERY(cars, $c, $c.year > 2000).@count > 0").condition.sql,
                       "(SELECT COUNT(t1.Z_PK) FROM ZCAR t1 WHERE t1.ZOWNER = t0.Z_PK AND (t1.ZYEAR > ?)) > ?")
        let all = try sql("Person", "ALL cars.year > 2000")
        XCTAssertEqual(all.condition.sql, "NOT EXISTS (SELECT 1 FROM ZCAR t1 WHERE t1.ZOWNER = t0.Z_PK AND ((t1.ZYEAR > ?) IS NOT 1))")
        XCTAssertEqual(all.warnings.count, 1)
        // A to-many whose destination shares its table with a sibling entity is filtered by Z_ENT.
        XCTAssertEqual(try sql("Tag", "ANY people.age > 3").warnings, [])
    }

    func testCoreDataErrors() {
        XCTAssertTrue(failure("Person", "cars.name == 'x'").hasPrefix("to-many key not allowed here"))
        XCTAssertEqual(failure("Tag", "ANY people.cars.name == 'x'"), "multiple to-many keys not allowed here")
        XCTAssertEqual(failure("Person", "agee > 3"), "keypath agee not found in entity Person (did you mean 'age'?)")
        XCTAssertEqual(failure("Person", "AGE > 3"), "keypath AGE not found in entity Person (did you mean 'age'?)")
        XCTAssertTrue(failure("Person", "nickname == 'x'").contains("not stored"))
        XCTAssertTrue(failure("Person", "name MATCHES '('").contains("invalid regular expression"))
        XCTAssertTrue(failure("Person", "FUNCTION(name, 'length') == 3").contains("calls a method"))
    }

    func testStringOperatorsUseUnicodeFunctions() throws {
        let c = try sql("Person", "name BEGINSWITH[cd] 'É' AND name LIKE 'd*' AND name ==[c] 'ÉMILE'")
        XCTAssertEqual(c.condition.sql, "(cdi_search(t0.ZNAME, ?, 1, 3)) AND (cdi_like(t0.ZNAME, ?, 0)) AND (cdi_fold(t0.ZNAME, 1) = ?)")
        XCTAssertEqual(c.condition.storedArguments, [.text("É"), .text("d*"), .text("émile")])
    }

    func testFetchPlansFilterSubentities() throws {
        let car = try FetchPlan(FetchRequest(entityName: "Car"), store: Self.store)
        XCTAssertEqual(car.statement.sql, "SELECT t0.Z_ENT, t0.Z_PK, t0.Z_OPT, t0.ZNAME, t0.ZPLATE, t0.ZYEAR, t0.ZOWNER FROM ZCAR t0")
        let sports = try FetchPlan(FetchRequest(entityName: "SportsCar", resultType: .count), store: Self.store)
        XCTAssertEqual(sports.statement.sql, "SELECT COUNT(*) FROM ZCAR t0 WHERE t0.Z_ENT = 2")
        let sorted = try FetchPlan(FetchRequest(entityName: "Car", sortDescriptors: [.init(keyPath: "owner.name", ascending: false)],
                                                fetchLimit: 5, fetchOffset: 10, propertiesToFetch: ["plate"], resultType: .dicts), store: Self.store)
        XCTAssertEqual(sorted.statement.sql, "SELECT t0.ZPLATE FROM ZCAR t0 LEFT OUTER JOIN ZPERSON t1 ON t0.ZOWNER = t1.Z_PK ORDER BY t1.ZNAME DESC LIMIT 5 OFFSET 10")
    }
}

import Foundation
import GRDB
import ManagedStore
import StoreCreation
import XCTest

/// Random and mutated predicate strings, each parsed, compiled against the example model
/// and counted on a small store: nothing may crash, and every failure must be a predicate
/// error that says where (a position inside the string).
final class PredicateFuzzTests: XCTestCase {
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }

        /// One to nine words of the vocabulary, with or without spaces between them.
        mutating func words(_ vocabulary: [String]) -> String {
            (0..<(1 + next(9))).map { _ in pick(vocabulary) }.joined(separator: next(4) == 0 ? "" : " ")
        }

        /// A seed with one to four changes: a character removed or replaced, a word put in, or
        /// the rest cut off.
        mutating func mutated(_ seed: String, _ vocabulary: [String], punctuation: String) -> String {
            var scalars = Array(seed.unicodeScalars)
            for _ in 0...next(3) {
                let at = scalars.isEmpty ? 0 : next(scalars.count)
                switch next(4) {
                case 0 where !scalars.isEmpty: scalars.remove(at: at)
                case 1: scalars.insert(contentsOf: pick(vocabulary).unicodeScalars, at: at)
                case 2 where !scalars.isEmpty: scalars[at] = pick(Array(punctuation.unicodeScalars))
                default: scalars = Array(scalars.prefix(at))
                }
            }
            return String(String.UnicodeScalarView(scalars))
        }
    }

    static let seeds = [
        "name == 'dave1'", "age > 30 AND name BEGINSWITH[c] 'D'", "ANY tags.name IN {'work', 'gym'}",
        "SUBQUERY(cars, $c, $c.year > 2000 AND $c.owner.age < 40).@count > 0", "cars.@count >= 1 OR NOT (isActive == YES)",
        "birthday < CAST(0, \"NSDate\")", "score BETWEEN {10, 20.5}", "name LIKE[cd] 'd?v*' && age != nil",
        "name MATCHES '.*[0-9]+'", "ALL cars.year > 1990", "NONE tags.name ENDSWITH 'k'", "cars.@sum.year > 4000",
        "homepage CONTAINS 'example' || -age < -50", "(age + 1) * 2 > 40", "age ** 2 == 400", "abs(age - 50) < 3",
        "%K == %@", "owner.name == %@", "TRUEPREDICATE", "name == \"a\\\"b\"", "id == nil", "#size == 3", "'x' IN name",
    ]

    static let vocabulary = [
        "name", "age", "cars", "tags", "owner", "year", "isActive", "score", "birthday", "SELF", "$x", "$c", "@count",
        "@sum", "@avg", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "AND", "OR", "NOT", "&&", "||", "!",
        "ANY", "ALL", "NONE", "SOME", "IN", "LIKE", "MATCHES", "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN",
        "[c]", "[cd]", "[n]", "(", ")", "{", "}", "[", "]", ",", ".", "+", "-", "*", "/", "**", "1", "0x1F", "0b2",
        "2.5e3", "'str'", "\"q\"", "'", "\"", "nil", "YES", "NO", "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "CAST",
        "FUNCTION", "%@", "%K", "%d", "%f", "%%", "#", "#size", "size", "FIRST", "LAST", "SIZE", "abs", "now", "foo",
        "UTI-EQUALS", "\\", "é", "\u{0}", "?", ":=",
    ]

    /// The example model's store with four people, their cars and a tag, in a folder the
    /// test removes.
    func smallStore() throws -> PersistentStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cdi-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("People.sqlite").path
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        try StoreCreator.create(at: path, model: try XcdatamodelReader.model(atPath: root.appendingPathComponent("Examples/People.xcdatamodeld").path))
        try StoreLoader.load(path) { loader in
            let tag = try loader.insert("Tag", ["name": "work"])
            for i in 0..<4 {
                let person = try loader.insert("Person", ["name": "dave\(i)", "age": 20 + i * 10, "isActive": i % 2 == 0, "score": 1.5 * Double(i)])
                try loader.insert(i % 2 == 0 ? "Car" : "SportsCar", ["name": "car\(i)", "year": 1990 + i * 10, "owner": person])
                try loader.relate("Person", person, "tags", tag)
            }
        }
        return try PersistentStore(path: path)
    }

    func testHundredThousandPredicates() throws {
        let store = try smallStore()
        var generator = Generator(state: 0x5EED)
        var outcomes = (results: 0, errors: 0)
        var failures: [String] = []
        let total = 100_000
        for n in 0..<total {
            let text = n % 2 == 0 ? generator.words(Self.vocabulary)
                : generator.mutated(generator.pick(Self.seeds), Self.vocabulary, punctuation: "()[]{}'\"%$@#.,!=<>*+-/\\ 0aZ")
            let arguments = ["\"dave1\"", "30", "{1, 2}"].prefix(generator.next(4)).map { $0 }
            let keyArguments = text.contains("%K") ? ["name"] + arguments : arguments
            do {
                let predicate = try PredicateParser.parse(text, written: keyArguments, variables: ["x": "3"])
                let entity = generator.pick(["Person", "Car", "SportsCar", "Tag"])
                // Written as Swift, it is code or a refusal that names the construct.
                do {
                    _ = try SwiftPredicateWriter.predicate(predicate, entity: entity, model: store.model)
                } catch is PredicateCodeError {
                }
                let plan = try FetchPlan(FetchRequest(entityName: entity, predicate: predicate, predicateText: text, resultType: .count), store: store)
                _ = try store.reader.read { try plan.count($0) }
                outcomes.results += 1
            } catch let e as PredicateFormatError {
                if e.position < 0 || e.position > text.unicodeScalars.count || e.predicate != text {
                    failures.append("bad position \(e.position) for \(text.debugDescription)")
                }
                outcomes.errors += 1
            } catch {
                failures.append("\(text.debugDescription): \(error)")
            }
        }
        XCTAssertEqual(outcomes.results + outcomes.errors, total)
        XCTAssertGreaterThan(outcomes.results, 1000, "the fuzzer should reach the store, not only the parser")
        XCTAssertEqual(failures.count, 0, failures.prefix(20).joined(separator: "\n"))
    }

    static let swiftSeeds = [
        "#Predicate<Person> { $0.age! > 30 && $0.name.starts(with: \"d\") }", "{ p in p.cars?.contains { $0.year! > 2000 } == true }",
        "{ ($0.score ?? 0) > 1.5 || !$0.isActive }", "{ $0.name.localizedStandardContains(\"a\") }", "{ [1, 2].contains($0.age!) }",
        "{ ($0.cars?.filter { c in c.year! > 1990 }.count ?? 0) >= 1 }", "{ $0.birthday! < Date.now }", "{ $0.cars?.contains { $0.owner?.name == \"dave1\" } == true }",
        "{ $0.tags?.isEmpty == false }", "{ $0.name.caseInsensitiveCompare(\"DAVE1\") == .orderedSame }", "{ $0.age! * 2 + 1 > x }",
        "{ $0.cars?.allSatisfy { $0.year! > 1 } != false }", "{ $0.age == nil ? true : $0.age! > 3 }", "{ $0.name.lowercased() == \"dave0\" }",
    ]

    static let swiftVocabulary = [
        "$0", "$1", "p", "in", "{", "}", "(", ")", "[", "]", ".", "?.", "!", "?", ":", ",", "==", "!=", "<", ">", "<=", ">=", "&&",
        "||", "??", "+", "-", "*", "/", "%", "name", "age", "cars", "tags", "owner", "year", "count", "isEmpty", "contains",
        "starts(with:", "allSatisfy", "filter", "nil", "true", "false", "1", "2.5", "0x1F", "\"s\"", "\"", "\\(", "#Predicate",
        "<Person>", "Date.now", "Date(timeIntervalSinceReferenceDate:", ".hot", "return", "let", "`", "//", "/*", "x", "é", "\u{0}",
    ]

    func testTwentyThousandSwiftPredicates() throws {
        let store = try smallStore()
        // Every seed, unmutated, reaches the store.
        for seed in Self.swiftSeeds {
            let predicate = try SwiftPredicateReader.parse(seed, entity: "Person", model: store.model, variables: ["x": .integer(3)])
            let plan = try FetchPlan(FetchRequest(entityName: "Person", predicate: predicate, predicateText: seed, resultType: .count), store: store)
            XCTAssertNoThrow(try store.reader.read { try plan.count($0) }, seed)
        }
        var generator = Generator(state: 0x5EED)
        var outcomes = (results: 0, errors: 0)
        var failures: [String] = []
        let total = 20_000
        for n in 0..<total {
            let text = n % 2 == 0 ? "{ " + generator.words(Self.swiftVocabulary) + " }"
                : generator.mutated(generator.pick(Self.swiftSeeds), Self.swiftVocabulary, punctuation: "()[]{}\"$.,!?=<>*+-/\\ 0aZ")
            do {
                // The seeds are Person's; random text may name any entity.
                let entity = n % 2 == 1 ? "Person" : generator.pick(["Person", "Car", "SportsCar", "Tag"])
                let predicate = try SwiftPredicateReader.parse(text, entity: entity, model: store.model, variables: ["x": .integer(3)])
                let plan = try FetchPlan(FetchRequest(entityName: entity, predicate: predicate, predicateText: text, resultType: .count), store: store)
                _ = try store.reader.read { try plan.count($0) }
                outcomes.results += 1
            } catch let e as PredicateFormatError {
                if e.position < 0 || e.position > text.unicodeScalars.count || e.predicate != text {
                    failures.append("bad position \(e.position) for \(text.debugDescription)")
                }
                outcomes.errors += 1
            } catch {
                failures.append("\(text.debugDescription): \(error)")
            }
        }
        XCTAssertEqual(outcomes.results + outcomes.errors, total)
        XCTAssertGreaterThan(outcomes.results, 200, "the fuzzer should reach the store, not only the parser")
        XCTAssertEqual(failures.count, 0, failures.prefix(20).joined(separator: "\n"))
    }
}

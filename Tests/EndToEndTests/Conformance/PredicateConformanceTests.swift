import Foundation
import GRDB
import ManagedStore
import StoreCreation
import XCTest

/// Every case in ../shared/conformance, run through the built binary as a `count` against a
/// store made for it. Where a case records that Core Data's SQLite store answers differently
/// from Foundation's in-memory rule (`coredata_sqlite`), Core Data's answer is asserted.
final class PredicateConformanceTests: XCTestCase {
    struct Case: Decodable {
        let id: String
        let predicate: String
        let object: JSONValue?
        let expect: JSONValue
        let args: [JSONValue]?
        let variables: [String: JSONValue]?
        let coredata_sqlite: JSONValue?
    }

    struct Dataset: Decodable {
        struct Query: Decodable {
            let predicate: String
            let expect_count: Int
            let args: [JSONValue]?
        }
        let id: String
        let entity: String
        let schema: [String: [String: JSONValue]]
        let objects: [JSONValue]
        let queries: [Query]
    }

    static var conformance: URL { get throws { try SharedFiles.require("conformance") } }

    /// Which format specifiers are `%K`, in order, skipping quoted text.
    static func specifiers(_ predicate: String) -> [Character] {
        var result: [Character] = []
        var quote: Character?
        var chars = Array(predicate)[...]
        while let c = chars.popFirst() {
            if let q = quote {
                if c == "\\" { _ = chars.popFirst() } else if c == q { quote = nil }
                continue
            }
            if c == "\"" || c == "'" { quote = c; continue }
            if c == "%", let next = chars.popFirst() {
                if next == "l" { _ = chars.popFirst() }
                result.append(next)
            }
        }
        return result
    }

    static func cliArguments(_ predicate: String, _ args: [JSONValue]?, _ variables: [String: JSONValue]?) -> [String] {
        let specs = specifiers(predicate)
        var out: [String] = []
        for (i, arg) in (args ?? []).enumerated() {
            let isKeyPath = i < specs.count && specs[i] == "K"
            out += ["--arg", isKeyPath ? (arg.string ?? arg.literal) : arg.literal]
        }
        for (name, value) in (variables ?? [:]).sorted(by: { $0.key < $1.key }) {
            out += ["--var", "\(name)=\(value.literal)"]
        }
        return out
    }

    /// A case's store, made for its object graph and the key paths its predicate names, and
    /// the command-line arguments that fill its specifiers and variables.
    static func prepare(_ c: Case, in folder: URL) throws -> (store: String, root: String, arguments: [String]) {
        let model = ConformanceModel()
        var object: [String: JSONValue] = [:]
        if case .object(let o)? = c.object { object = o }
        model.describe(object, as: model.root)
        let arguments = cliArguments(c.predicate, c.args, c.variables)
        if let parsed = try? PredicateParser.parse(c.predicate, written: arguments.enumerated().filter { $0.offset % 2 == 1 && arguments[$0.offset - 1] == "--arg" }.map(\.element),
                                                   variables: (c.variables ?? [:]).mapValues(\.literal)) {
            for (path, type) in PredicateKeyPaths.typed(parsed) { model.require(path, type: type) }
            for path in PredicateKeyPaths.of(parsed) { model.require(path) }
        }
        let store = folder.appendingPathComponent("\(c.id).sqlite").path
        try model.createStore(at: store, object: object)
        return (store, model.root, arguments)
    }

    static func cases() throws -> [Case] {
        let data = try Data(contentsOf: try conformance.appendingPathComponent("predicate-cases.json"))
        return try JSONDecoder().decode([Case].self, from: data)
    }

    func testPredicateCases() throws {
        let cases = try Self.cases()
        XCTAssertGreaterThan(cases.count, 200)
        let folder = try Fixtures.temporaryDirectory(self)
        var checked = 0
        for c in cases {
            let (store, root, arguments) = try Self.prepare(c, in: folder)
            let result = try CLI.run(["count", store, root, "--where", c.predicate] + arguments)
            let context = "\(c.id): \(c.predicate) \(arguments) → status \(result.status), \(result.stdout)\(result.stderr)"
            let expected = c.coredata_sqlite ?? c.expect
            switch expected {
            case .bool(let b):
                XCTAssertEqual(result.status, 0, context)
                XCTAssertEqual(result.stdout, b ? "1\n" : "0\n", context)
            case .string("parse-error"):
                XCTAssertEqual(result.status, 1, context)
                XCTAssertTrue(result.stderr.contains("predicate syntax error at column"), context)
                XCTAssertTrue(result.stderr.contains("^"), context)
            case .string("parse-ok"):
                XCTAssertFalse(result.stderr.contains("syntax error"), context)
            case .string("error"):
                // Core Data refuses the predicate; so must cdinspect, with Core Data's words.
                XCTAssertEqual(result.status, 1, context)
                XCTAssertTrue(result.stderr.contains("to-many key not allowed here"), context)
            case .string(let note) where note.hasPrefix("differs: no error"):
                XCTAssertEqual(result.status, 0, context)
            default:
                XCTFail("unhandled expectation \(expected) in \(c.id)")
            }
            checked += 1
        }
        XCTAssertEqual(checked, cases.count)
    }

    /// Every case whose NSPredicate runs goes NSPredicate → `explain --as swift` → `--where`
    /// and must give the same count; a case with no #Predicate form is refused in one line
    /// naming the construct.
    func testSwiftRoundTrip() throws {
        let cases = try Self.cases()
        let folder = try Fixtures.temporaryDirectory(self)
        var converted = 0, refused = 0, running = 0
        for c in cases {
            let (store, root, arguments) = try Self.prepare(c, in: folder)
            let direct = try CLI.run(["count", store, root, "--where", c.predicate] + arguments)
            guard direct.status == 0 else { continue }
            running += 1
            let code = try CLI.run(["explain", store, root, "--where", c.predicate, "--as", "swift"] + arguments)
            let context = "\(c.id): \(c.predicate) \(arguments) → \(code.stdout)\(code.stderr)"
            if code.status != 0 {
                XCTAssertEqual(code.status, 1, context)
                XCTAssertTrue(code.stderr.hasSuffix("\n") && code.stderr.dropLast().split(separator: "\n").count == 1, context)
                XCTAssertTrue(code.stderr.contains("has no #Predicate form"), context)
                refused += 1
                continue
            }
            XCTAssertTrue(code.stdout.hasPrefix("#Predicate<\(root)> {"), context)
            let swift = try CLI.run(["count", store, root, "--where", code.stdout])
            XCTAssertEqual(swift.status, 0, context + " → " + swift.stderr)
            XCTAssertEqual(swift.stdout, direct.stdout, context)
            converted += 1
        }
        print("Swift round trip: \(converted) of \(running) running cases converted, \(refused) refused (\(cases.count) cases)")
        XCTAssertEqual(converted + refused, running)
        XCTAssertGreaterThan(converted, running / 2)
    }

    func testDatasets() throws {
        let data = try Data(contentsOf: try Self.conformance.appendingPathComponent("predicate-datasets.json"))
        let datasets = try JSONDecoder().decode([Dataset].self, from: data)
        XCTAssertFalse(datasets.isEmpty)
        let folder = try Fixtures.temporaryDirectory(self)
        for dataset in datasets {
            let store = folder.appendingPathComponent("\(dataset.id).sqlite").path
            try DatasetStore.create(dataset, at: store)
            for query in dataset.queries {
                let arguments = Self.cliArguments(query.predicate, query.args, nil)
                let result = try CLI.run(["count", store, dataset.entity, "--where", query.predicate] + arguments)
                let context = "\(dataset.id): \(query.predicate) \(arguments): \(result.stderr)"
                XCTAssertEqual(result.status, 0, context)
                XCTAssertEqual(result.stdout, "\(query.expect_count)\n", context)
            }
        }
    }
}

/// A dataset's declared schema and rows; nested objects with the same `$id` are one row.
enum DatasetStore {
    static func create(_ dataset: PredicateConformanceTests.Dataset, at path: String) throws {
        var descriptions: [EntityDescription] = []
        let types: [String: AttributeType] = ["string": .string, "date": .date, "boolean": .boolean, "integer": .integer64, "double": .double]
        for (entity, properties) in dataset.schema.sorted(by: { $0.key < $1.key }) {
            var list: [PropertyDescription] = []
            let toManyNames = properties.filter { $0.value["toMany"] == .bool(true) }.map(\.key).sorted()
            for (name, spec) in properties.sorted(by: { $0.key < $1.key }) {
                if let type = spec.string {
                    list.append(.attribute(AttributeDescription(name: name, type: types[type] ?? .string)))
                } else if let destination = spec["to"]?.string {
                    let toMany = spec["toMany"] == .bool(true)
                    // Two to-many relationships of an entity onto itself are each other's inverse.
                    let inverse = toMany && destination == entity ? toManyNames.first { $0 != name } : nil
                    list.append(.relationship(RelationshipDescription(name: name, destinationEntityName: destination,
                                                                      inverseName: inverse, maxCount: toMany ? 0 : 1)))
                }
            }
            descriptions.append(EntityDescription(name: entity, properties: list))
        }
        let model = ManagedObjectModel(entities: descriptions, source: .modelCache)
        try StoreCreator.create(at: path, model: model)

        var rows: [String: (entity: String, object: [String: JSONValue])] = [:]
        var order: [String] = []
        func collect(_ value: JSONValue) {
            guard case .object(let o) = value, let id = o["$id"]?.string, let entity = o["$entity"]?.string else { return }
            if rows[id] == nil { order.append(id); rows[id] = (entity, [:]) }
            for (k, v) in o where !k.hasPrefix("$") {
                rows[id]!.object[k] = v
                if case .array(let items) = v { items.forEach(collect) }
                if case .object = v { collect(v) }
            }
        }
        dataset.objects.forEach(collect)
        try StoreLoader.load(path) { loader in
            var keys: [String: Int64] = [:]
            for id in order {
                let (entity, object) = rows[id]!
                var values: [String: DatabaseValueConvertible?] = [:]
                for (k, v) in object { if let stored = ConformanceModel.storageValue(v) { values[k] = stored } }
                keys[id] = try loader.insert(entity, values)
            }
            var links = Set<String>()
            for id in order {
                let (entity, object) = rows[id]!
                for (name, value) in object {
                    guard case .array(let items) = value, let spec = dataset.schema[entity]?[name] else { continue }
                    let inverse = descriptions.first { $0.name == entity }?.properties.compactMap { p -> String? in
                        if case .relationship(let r) = p, r.name == name { return r.inverseName }
                        return nil
                    }.first
                    for case .object(let o) in items {
                        guard let target = o["$id"]?.string, let destination = keys[target] else { continue }
                        // A link listed from both sides is one row of the join table.
                        var key = "\(name) \(id) \(target)"
                        if let inverse, inverse < name { key = "\(inverse) \(target) \(id)" }
                        guard links.insert(key).inserted else { continue }
                        _ = spec
                        if let inverse, inverse < name {
                            try loader.relate(entity, destination, inverse, keys[id]!)
                        } else {
                            try loader.relate(entity, keys[id]!, name, destination)
                        }
                    }
                }
            }
        }
    }
}

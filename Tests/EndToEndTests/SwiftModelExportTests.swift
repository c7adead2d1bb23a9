import Foundation
import ManagedStore
import XCTest

/// `model export DIR --swift` and `--managed-object`: sources for the example store and every
/// SwiftData fixture, each of which `swiftc -parse` accepts, and which, with SwiftData's
/// annotations set aside (Linux has no SwiftData), `swiftc -typecheck` accepts but for
/// Apple-only types.
final class SwiftModelExportTests: XCTestCase {
    /// Types only Apple's platforms have: what may stay unresolved on Linux.
    static let appleOnlyTypes = ["NSColor", "UIColor", "NSImage", "UIImage", "CGColor", "CGImage", "PersistentIdentifier"]

    /// The `@Model` sources in `folder` with SwiftData's annotations stripped (`import
    /// SwiftData`, `@Model`, `@Attribute(…)`, `@Relationship(…)`, `#Index`, `#Unique`),
    /// type-checked together: the errors other than an Apple-only type not found.
    static func typecheckErrors(_ folder: URL, in work: URL) throws -> [String] {
        let plain = work.appendingPathComponent("plain-\(folder.lastPathComponent)")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        let annotation = try NSRegularExpression(pattern: #"@(Attribute|Relationship)\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\s*"#)
        var paths: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).filter({ $0.hasSuffix(".swift") }).sorted() {
            let source = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let lines = source.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                return trimmed != "import SwiftData" && trimmed != "@Model" && !trimmed.hasPrefix("#Index<") && !trimmed.hasPrefix("#Unique<")
            }.joined(separator: "\n")
            let stripped = annotation.stringByReplacingMatches(in: lines, range: NSRange(lines.startIndex..., in: lines), withTemplate: "")
            let path = plain.appendingPathComponent(name).path
            try stripped.write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let result = try CLI.run(["-typecheck"] + paths, executable: try swiftc)
        let errors = (result.stdout + result.stderr).split(separator: "\n").map(String.init).filter { $0.contains(": error: ") }
        return errors.filter { line in !appleOnlyTypes.contains { line.hasSuffix("error: cannot find type '\($0)' in scope") } }
    }

    static let swiftDataStores = ["Hamanto-Studio_heritg/swiftdata-1.0.0.store", "Karim-ezzedine_CartKit/CartKitSwiftData_v1.sqlite",
                                  "thierryH91200_PegaseUIData_v2/SampleManager.store"]

    /// `swiftc` from PATH: the toolchain that builds the tests has one.
    static var swiftc: URL {
        get throws {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            for folder in path.split(separator: ":") {
                let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
            throw XCTSkip("no swiftc on PATH")
        }
    }

    /// Runs `swiftc -parse` on the folder's sources and returns its status and output.
    func parse(_ folder: URL) throws -> (status: Int32, output: String) {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
        XCTAssertFalse(files.isEmpty)
        let result = try CLI.run(["-parse"] + files.map { folder.appendingPathComponent($0).path }, executable: try Self.swiftc)
        return (result.status, result.stdout + result.stderr)
    }

    func export(_ store: String, to folder: URL, _ flags: [String]) throws -> URL {
        let result = try CLI.run(["model", store, "export", folder.path] + flags)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("wrote "), result.stdout)
        let parsed = try parse(folder)
        XCTAssertEqual(parsed.status, 0, "\(store) \(flags): \(parsed.output)")
        return folder
    }

    func source(_ folder: URL, _ file: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
    }

    func testTheExampleStoreExportsAsModelClassesAndManagedObjects() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder).path
        let models = try export(store, to: folder.appendingPathComponent("models"), ["--swift"])
        XCTAssertEqual(try Self.typecheckErrors(models, in: folder), [])
        // A subclass's initializer takes what its superclass's needs and passes it on.
        XCTAssertTrue(try source(models, "SportsCar.swift").contains("    override init(plate: String) {\n        super.init(plate: plate)\n    }"))
        let person = try source(models, "Person.swift")
        for line in ["@Model\nfinal class Person {", "    var age: Int32? = 0\n", "    var name: String\n", "    var id: UUID\n",
                     "    @Attribute(.externalStorage) var photo: Data?\n", "    @Attribute(.ephemeral) var nickname: String?\n",
                     "    @Relationship(deleteRule: .cascade, inverse: \\Car.owner) var cars: [Car]?\n",
                     "    @Relationship(deleteRule: .nullify, inverse: \\Tag.people) var tags: [Tag]?\n"] {
            XCTAssertTrue(person.contains(line), "no \(line) in\n\(person)")
        }
        // The inverse is named on one side of each pair only, as the macro requires.
        XCTAssertTrue(try source(models, "Tag.swift").contains("@Relationship(deleteRule: .deny) var people: [Person]?"))
        XCTAssertTrue(try source(models, "SportsCar.swift").contains("final class SportsCar: Car {"))
        XCTAssertTrue(try source(models, "Car.swift").contains("@Model\nclass Car {"))

        let classes = try export(store, to: folder.appendingPathComponent("classes"), ["--managed-object"])
        let managed = try source(classes, "Person.swift")
        for line in ["@objc(Person)\npublic class Person: NSManagedObject {", "NSFetchRequest<Person>(entityName: \"Person\")",
                     "@NSManaged public var age: Int32\n", "@NSManaged public var cars: NSSet?\n", "@NSManaged public func addToCars(_ value: Car)"] {
            XCTAssertTrue(managed.contains(line), "no \(line) in\n\(managed)")
        }
        // Nothing that exists is overwritten.
        let again = try CLI.run(["model", store, "export", models.path, "--swift"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)
        let misplaced = try CLI.run(["model", store, "--swift"])
        XCTAssertEqual(misplaced.status, 64)
    }

    func testEverySwiftDataFixtureExportsSourcesThatParse() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        for (i, fixture) in Self.swiftDataStores.enumerated() {
            let copies = folder.appendingPathComponent("s\(i)")
            try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
            let store = try Fixtures.copy(fixture, into: copies).path
            let models = try export(store, to: folder.appendingPathComponent("models\(i)"), ["--swift"])
            XCTAssertEqual(try Self.typecheckErrors(models, in: folder), [], fixture)
            _ = try export(store, to: folder.appendingPathComponent("classes\(i)"), ["--managed-object"])
            if fixture.hasPrefix("Karim") {
                XCTAssertTrue(try source(models, "CartItemModel.swift").contains("@Attribute(.unique) var id: String\n"))
            }
            if fixture.hasPrefix("Hamanto") {
                XCTAssertTrue(try source(models, "Person.swift").contains("@Attribute(.externalStorage) var profilePhotoData: Data?\n"))
            }
            if fixture.hasPrefix("thierry") {
                XCTAssertTrue(try source(models, "EntityRubric.swift").contains("@Attribute(.transformable(by: \"ColorTransformer\")) var color: NSColor\n"))
            }
        }
    }

    /// What no fixture has: constraints of several keys, indexes, renamed and ordered
    /// properties, a derived attribute, a transformable without a class, and property names
    /// Swift reserves.
    func testEveryModelFeatureHasItsSwiftSpelling() throws {
        var renamed = AttributeDescription(name: "title", type: .string, isOptional: false, renamingIdentifier: "name")
        renamed.defaultValue = "untitled"
        var derived = AttributeDescription(name: "pageCount", type: .integer64)
        derived.isDerived = true
        derived.derivation = "count:(pages)"
        let book = EntityDescription(name: "Book", className: "MyApp.Book", properties: [
            .attribute(renamed), .attribute(derived),
            .attribute(AttributeDescription(name: "default", type: .boolean, isOptional: false, defaultValue: "NO")),
            .attribute(AttributeDescription(name: "isbn", type: .string, isOptional: false)),
            .attribute(AttributeDescription(name: "edition", type: .integer16, isOptional: false, defaultValue: "1")),
            .attribute(AttributeDescription(name: "extras", type: .transformable)),
            .relationship(RelationshipDescription(name: "pages", destinationEntityName: "Page", inverseName: "book", minCount: 1, maxCount: 0,
                                                  deleteRule: .cascade, isOrdered: true)),
        ], uniquenessConstraints: [["isbn", "edition"], ["title"]],
           fetchIndexes: [FetchIndexDescription(name: "byTitle", elements: [.init(propertyName: "title"), .init(propertyName: "edition")])])
        let page = EntityDescription(name: "Page", properties: [
            .attribute(AttributeDescription(name: "number", type: .integer32, isOptional: false, defaultValue: "0")),
            .relationship(RelationshipDescription(name: "book", destinationEntityName: "Book", inverseName: "pages", deleteRule: .nullify)),
        ])
        let model = ManagedObjectModel(entities: [book, page], source: .modelCache)
        let folder = try Fixtures.temporaryDirectory(self)
        for (style, name) in [(SwiftModelSource.Style.swiftData, "models"), (.managedObject, "classes")] {
            let out = folder.appendingPathComponent(name)
            let paths = try SwiftModelSource.write(SwiftModelSource.files(for: model, style: style), to: out.path)
            XCTAssertEqual(paths.map { URL(fileURLWithPath: $0).lastPathComponent }, ["Book.swift", "Page.swift"])
            let parsed = try parse(out)
            XCTAssertEqual(parsed.status, 0, parsed.output)
        }
        let models = folder.appendingPathComponent("models")
        let source = try source(models, "Book.swift")
        for line in ["#Unique<Book>([\\.isbn, \\.edition])", "#Index<Book>([\\.title, \\.edition])",
                     "@Attribute(.unique, originalName: \"name\") var title: String = \"untitled\"",
                     "// derived in the model (count:(pages)): SwiftData has no derived attributes",
                     "var `default`: Bool = false", "var edition: Int16 = 1", "var isbn: String\n",
                     "@Attribute(.transformable(by: \"NSSecureUnarchiveFromData\")) var extras: NSObject?",
                     "@Relationship(deleteRule: .cascade, minimumModelCount: 1, inverse: \\Page.book) var pages: [Page]? // ordered in the model; SwiftData keeps no order",
                     "init(isbn: String) {"] {
            XCTAssertTrue(source.contains(line), "no \(line) in\n\(source)")
        }
        XCTAssertTrue(try self.source(models, "Page.swift").contains("@Relationship(deleteRule: .nullify) var book: Book?\n"))
        let managed = try self.source(folder.appendingPathComponent("classes"), "Book.swift")
        for line in ["@NSManaged public var pages: NSOrderedSet?", "@NSManaged public func insertIntoPages(_ value: Page, at idx: Int)",
                     "@NSManaged public var `default`: Bool", "@NSManaged public var edition: Int16"] {
            XCTAssertTrue(managed.contains(line), "no \(line) in\n\(managed)")
        }
        // Nothing that exists is overwritten, and a failed write leaves nothing of its own.
        XCTAssertThrowsError(try SwiftModelSource.write(SwiftModelSource.files(for: model, style: .swiftData), to: models.path))
    }
}

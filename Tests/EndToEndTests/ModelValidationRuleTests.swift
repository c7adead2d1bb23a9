import Foundation
import ManagedStore
import XCTest

/// An attribute's validation rules, read where Core Data keeps them: the model editor's
/// minimum, maximum and pattern in a model file, and the validation predicates and warnings
/// in a store's model cache (those of genuine stores read as Core Data wrote them); written
/// back by the model writer and the archiver; and checked by `validate` and `save`.
final class ModelValidationRuleTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try Fixtures.temporaryDirectory(self)
    }

    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Person" representedClassName="Person" syncable="YES">
                <attribute name="age" optional="YES" attributeType="Integer 16" minValueString="0" maxValueString="150" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="code" optional="YES" attributeType="String" minValueString="2" maxValueString="4" regularExpressionString="[A-Z]+"/>
                <attribute name="note" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """

    func rules(_ model: ManagedObjectModel, _ key: String) -> [ValidationRule] {
        for case .attribute(let a) in model.entity(named: "Person")?.properties ?? [] where a.name == key { return a.validationRules }
        return []
    }

    func testTheModelEditorsBoundsAreRulesAndComeBack() throws {
        let read = try XcdatamodelReader.model(contents: Array(Self.model.utf8), file: "contents", source: "test")
        XCTAssertEqual(rules(read, "age"), [ValidationRule(.compare(.value, .greaterThanOrEqual, .number(0)), warning: .code(1620)),
                                            ValidationRule(.compare(.value, .lessThanOrEqual, .number(150)), warning: .code(1610))])
        XCTAssertEqual(rules(read, "code").map(\.predicateText), ["length >= 2", "length <= 4", "SELF MATCHES \"[A-Z]+\""])
        XCTAssertEqual(rules(read, "note"), [])
        // The model writer puts them back where Xcode writes them; the archiver into the cache.
        let written = ModelXMLWriter.contents(of: read)
        XCTAssertTrue(written.contains(#"attributeType="Integer 16" minValueString="0" maxValueString="150" defaultValueString="0""#), written)
        let reread = try XcdatamodelReader.model(contents: Array(written.utf8), file: "contents", source: "test")
        XCTAssertEqual(rules(reread, "code"), rules(read, "code"))
        let cached = try ModelCacheReader.model(fromCompressed: RawDeflate.deflate(BinaryPropertyListWriter.encode(ModelArchiver.archive(read))))
        XCTAssertEqual(rules(cached, "age"), rules(read, "age"))
        XCTAssertEqual(rules(cached, "code"), rules(read, "code"))
        XCTAssertEqual(rules(cached, "note"), [])
    }

    /// Notes' cache (macOS 26) holds `SELF >= 0` with 1620 (number too small) on two counts;
    /// CoreDataPlus's holds rules set in code: an AND of two length bounds and a CONTAINS, each
    /// with the model's own message.
    func testGenuineCachesRulesAreReadAsCoreDataWroteThem() throws {
        let notes = try PersistentStore(path: try Fixtures.copy("RhetTbull_apple-notes-parser/NoteStore-macOS-26-Tahoe.sqlite", into: folder).path,
                                        options: .init(readonly: true))
        let ruled = notes.model.entities.flatMap { entity in
            entity.properties.compactMap { property -> (String, [ValidationRule])? in
                guard case .attribute(let a) = property, !a.validationRules.isEmpty else { return nil }
                return ("\(entity.name).\(a.name)", a.validationRules)
            }
        }
        XCTAssertFalse(ruled.isEmpty)
        for (name, rules) in ruled {
            XCTAssertEqual(rules, [ValidationRule(.compare(.value, .greaterThanOrEqual, .number(0)), warning: .code(1620))], name)
        }
        XCTAssertTrue(ruled.contains { $0.0.hasSuffix(".serverSideUpdateTaskFailureCount") }, "\(ruled.map(\.0))")

        let sample = try PersistentStore(path: try Fixtures.copy("alemar11_CoreDataPlus/SampleModel2__Fixtures__SampleModel2_V2.sqlite", into: folder).path,
                                         options: .init(readonly: true))
        let titles = sample.model.entities.flatMap { entity in
            entity.properties.compactMap { property -> [ValidationRule]? in
                guard case .attribute(let a) = property, a.name == "title", !a.validationRules.isEmpty else { return nil }
                return a.validationRules
            }
        }
        let title = try XCTUnwrap(titles.first)
        XCTAssertEqual(title, [
            ValidationRule(.all([.compare(.length, .greaterThanOrEqual, .number(3)), .compare(.length, .lessThanOrEqual, .number(50))]),
                           warning: .message("Title must have a length between 3 and 50 chars.")),
            ValidationRule(.compare(.value, .contains, .text("title")), warning: .message("Title must contain 'title'.")),
        ])
        XCTAssertEqual(title[0].problem(with: .string("ab")), "is \"ab\": Title must have a length between 3 and 50 chars.")
        XCTAssertNil(title[0].problem(with: .string("a title")))
        XCTAssertNotNil(title[1].problem(with: .string("no such word")))
        // A model file cannot hold them: export writes the model and says which it left out.
        let exported = try CLI.run(["model", sample.path, "export", folder.appendingPathComponent("export").path])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue(exported.stderr.contains("validation rules set in code are not written") && exported.stderr.contains("Book.title"), exported.stderr)
    }

    /// `validate` says what a save would refuse, and `save` refuses it, naming the rule; a
    /// value inside the bounds validates and saves.
    func testValidateAndSaveCheckTheRules() throws {
        let store = try Fixtures.exampleStore(in: folder).path
        let model = try Fixtures.rangedExampleModel(in: folder)
        let refused = try CLI.run([store, "--model", model.path, "-c", "update Person/p3 age=200", "-c", "validate Person/p3"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("a save would fail: Person") && refused.stderr.contains("age is 200, more than the model's maximum 150"), refused.stderr)
        let saved = try CLI.run([store, "--model", model.path, "-c", "update Person/p3 age=200", "-c", "save"])
        XCTAssertNotEqual(saved.status, 0)
        XCTAssertTrue(saved.stderr.contains("validation failed, nothing was saved") && saved.stderr.contains("maximum 150"), saved.stderr)
        XCTAssertEqual(try CLI.run(["count", store, "Person", "--where", "age == 200"]).stdout, "0\n")
        let fine = try CLI.run([store, "--model", model.path, "-c", "update Person/p3 age=150", "-c", "validate Person/p3", "-c", "save"])
        XCTAssertEqual(fine.status, 0, fine.stderr)
        XCTAssertTrue(fine.stdout.contains("/Person/p3: valid"), fine.stdout)
        XCTAssertEqual(try CLI.run(["count", store, "Person", "--where", "age == 150"]).stdout, "1\n")
    }

    /// `create` keeps the rules in the new store's model cache, and `import` judges by them
    /// as a save does: an age past the maximum is refused, and kept with `--as-is`, named.
    func testCreateKeepsTheRulesAndImportJudgesByThem() throws {
        let model = try Fixtures.rangedExampleModel(in: folder)
        let created = folder.appendingPathComponent("ranged.sqlite").path
        let made = try CLI.run(["create", created, "--model", model.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        // The new store's cache holds them (read by another process: an import refuses a
        // store this one has opened).
        let cached = try CLI.run(["model", created])
        XCTAssertTrue(cached.stdout.contains(#"name="age" optional="YES" attributeType="Integer 32" minValueString="0" maxValueString="150""#), cached.stdout)
        let document = folder.appendingPathComponent("people.json")
        try Data(#"[{"name": "old", "id": "44444444-1111-4111-8111-111111111111", "age": 200}, {"name": "young", "id": "44444444-1111-4111-8111-111111111112", "age": 20}]"#.utf8)
            .write(to: document)
        let refused = try CLI.run(["import", created, document.path, "--entity", "Person"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stdout.contains("age is 200, more than the model's maximum 150"), refused.stdout)
        XCTAssertEqual(try CLI.run(["count", created, "Person"]).stdout, "0\n")
        let kept = try CLI.run(["import", created, document.path, "--entity", "Person", "--as-is"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertTrue(kept.stdout.contains("kept 1 as they are") && kept.stdout.contains("age is 200"), kept.stdout)
        XCTAssertEqual(try CLI.run(["count", created, "Person"]).stdout, "2\n")
    }
}

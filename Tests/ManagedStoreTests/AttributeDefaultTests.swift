import XCTest
@testable import ManagedStore

/// A model's default text read as Core Data reads it: the attribute type's own parse of a
/// string (`NSString`'s `integerValue`, `doubleValue`, `boolValue`), never a refusal. Wire's
/// `mutedStatus`, `Integer 32` with `defaultValueString="NO"`, is 0 in Core Data's cache and
/// in every row Core Data migrated.
final class AttributeDefaultTests: XCTestCase {
    func attribute(_ type: AttributeType, _ text: String) -> AttributeDescription {
        AttributeDescription(name: "a", type: type, isOptional: false, defaultValue: text)
    }

    func testEachTypeReadsItsDefaultAsFoundationParsesAString() {
        XCTAssertEqual(AttributeDefault.value(of: attribute(.integer32, "NO")), .integer(0))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.integer32, "YES")), .integer(0))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.integer16, "  -12abc")), .integer(-12))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.integer64, "99999999999999999999")), .integer(.max))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.boolean, "YES")), .bool(true))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.boolean, "NO")), .bool(false))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.boolean, "1")), .bool(true))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.boolean, "0")), .bool(false))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.boolean, "true")), .bool(true))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.double, "0")), .double(0))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.double, "1.5e3 apples")), .double(1500))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.float, ".5")), .double(0.5))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.float, "none")), .double(0))
        // A string default is its text, whatever it spells (`nil` and `NO` included).
        XCTAssertEqual(AttributeDefault.value(of: attribute(.string, "nil")), .string("nil"))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.string, "permanent")), .string("permanent"))
        XCTAssertEqual(AttributeDefault.value(of: attribute(.date, "-541228980")), .date(-541_228_980))
        XCTAssertNil(AttributeDefault.value(of: AttributeDescription(name: "a", type: .integer32)))
    }

    /// The cache `create` and `migrate` write holds each default as Core Data's caches do (an
    /// `NSNumber` for numbers and Booleans, an `NSDate`, a string), and every entity and
    /// property with its renaming identifier (its own name when the model gives none: every
    /// cache in the fixtures); read back, the model is the same.
    func testTheCacheHoldsTypedDefaultsAndEveryRenamingIdentifier() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Conversation", className: "ZMConversation", properties: [
                .attribute(AttributeDescription(name: "mutedStatus", type: .integer32, isOptional: false, defaultValue: "NO", renamingIdentifier: "muted")),
                .attribute(AttributeDescription(name: "archived", type: .boolean, isOptional: false, defaultValue: "YES")),
                .attribute(AttributeDescription(name: "seen", type: .date, isOptional: true, defaultValue: "-541228980.0")),
                .attribute(AttributeDescription(name: "type", type: .string, isOptional: false, defaultValue: "permanent")),
                .relationship(RelationshipDescription(name: "users", destinationEntityName: "Conversation", inverseName: nil, maxCount: 0)),
            ]),
        ], source: .modelFile("test"))
        let archive = ModelArchiver.archive(model)
        guard case .dictionary(let top) = archive, let objects = top.first(where: { $0.key == .string("$objects") })?.value,
              case .array(let all) = objects else { return XCTFail("not a keyed archive") }
        func field(_ object: PropertyListValue, _ key: String) -> PropertyListValue? {
            guard case .dictionary(let pairs) = object else { return nil }
            guard let value = pairs.first(where: { $0.key == .string(key) })?.value else { return nil }
            if case .uid(let i) = value { return all[i] }
            return value
        }
        var defaults: [String: PropertyListValue] = [:], renamings: [String: String] = [:]
        for object in all {
            guard case .string(let name)? = field(object, "NSPropertyName") ?? field(object, "NSEntityName") else { continue }
            if case .string(let renaming)? = field(object, "NSRenamingIdentifier") { renamings[name] = renaming }
            if let value = field(object, "NSDefaultValue") { defaults[name] = value }
        }
        XCTAssertEqual(renamings, ["Conversation": "Conversation", "mutedStatus": "muted", "archived": "archived", "seen": "seen",
                                   "type": "type", "users": "users"])
        XCTAssertEqual(defaults["mutedStatus"], .integer(0))
        XCTAssertEqual(defaults["archived"], .bool(true))
        XCTAssertEqual(defaults["type"], .string("permanent"))
        XCTAssertEqual(defaults["seen"].flatMap { field($0, "NS.time") }, .real(-541_228_980))
        let decoded = try ModelCacheReader.model(fromCompressed: RawDeflate.deflate(BinaryPropertyListWriter.encode(archive)))
        let conversation = try XCTUnwrap(decoded.entity(named: "Conversation"))
        func attributes(_ e: EntityDescription) -> [AttributeDescription] {
            e.properties.compactMap { property -> AttributeDescription? in
                if case .attribute(let a) = property { return a }
                return nil
            }
        }
        func defaultsByName(_ e: EntityDescription) -> [String: AttributeValue] {
            Dictionary(uniqueKeysWithValues: attributes(e).compactMap { a in AttributeDefault.value(of: a).map { (a.name, $0) } })
        }
        XCTAssertEqual(defaultsByName(conversation), defaultsByName(model.entities[0]))
        XCTAssertEqual(defaultsByName(conversation).count, 4)
        XCTAssertEqual(attributes(conversation).first { $0.name == "mutedStatus" }?.renamingIdentifier, "muted")
        // Without class names, as Core Data's migration caches the new model.
        let migrated = try ModelCacheReader.model(fromCompressed: RawDeflate.deflate(BinaryPropertyListWriter.encode(ModelArchiver.archive(model, classNames: false))))
        XCTAssertNil(migrated.entity(named: "Conversation")?.className)
    }
}

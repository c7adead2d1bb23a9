import XCTest
@testable import ManagedStore

/// The migration verdicts the fixture families do not exercise, each against the rule that
/// decides it.
final class ModelDiffTests: XCTestCase {
    func model(_ entities: [EntityDescription]) -> ManagedObjectModel {
        ManagedObjectModel(entities: entities, source: .modelFile("test"))
    }

    func attribute(_ name: String, _ type: AttributeType = .string, optional: Bool = true, default value: String? = nil,
                   renamedFrom: String? = nil) -> PropertyDescription {
        .attribute(AttributeDescription(name: name, type: type, isOptional: optional, defaultValue: value, renamingIdentifier: renamedFrom))
    }

    func summary(_ diff: ModelDiff) -> [String] {
        diff.changes.map { "\($0.entity).\($0.property ?? "-") \($0.kind.rawValue) \($0.migration.rawValue): \($0.detail)" }.sorted()
    }

    func testIdenticalModelsAreEquivalent() {
        let m = model([EntityDescription(name: "Person", properties: [attribute("name")])])
        let diff = ModelDiff(from: m, to: m)
        XCTAssertTrue(diff.isEquivalent)
        XCTAssertEqual(diff.verdict, "The models are equivalent.")
    }

    /// Apple's list has no type changes: a mapping model is needed.
    func testATypeChangeNeedsAMappingModel() {
        let diff = ModelDiff(from: model([EntityDescription(name: "Person", properties: [attribute("age", .integer16)])]),
                             to: model([EntityDescription(name: "Person", properties: [attribute("age", .string)])]))
        XCTAssertEqual(summary(diff), ["Person.age changed mappingModel: type Integer 16 → String"])
        XCTAssertEqual(diff.verdict, "Core Data cannot infer a lightweight migration: 1 change needs a mapping model.")
    }

    /// "An optional attribute becoming non-optional, and defining a default value" is
    /// inferred; without the default value it is not.
    func testBecomingNonOptionalNeedsADefaultValue() {
        let before = model([EntityDescription(name: "Person", properties: [attribute("name"), attribute("nick")])])
        let after = model([EntityDescription(name: "Person", properties: [attribute("name", optional: false, default: "?"), attribute("nick", optional: false)])])
        XCTAssertEqual(summary(ModelDiff(from: before, to: after)), [
            "Person.name changed lightweight: now non-optional, default ?",
            "Person.nick changed mappingModel: now non-optional, without a default value",
        ])
        // And "A nonoptional attribute becoming optional" is inferred.
        XCTAssertEqual(ModelDiff(from: after, to: before).migration, .lightweight)
    }

    /// A property or entity renamed with the renaming identifier set to the old name is a
    /// rename, not a removal and an addition.
    func testRenamingIdentifiersMakeRenames() {
        let before = model([EntityDescription(name: "Car", properties: [attribute("color")])])
        let after = model([EntityDescription(name: "Automobile", properties: [attribute("paintColor", renamedFrom: "color")], renamingIdentifier: "Car")])
        XCTAssertEqual(summary(ModelDiff(from: before, to: after)), [
            "Automobile.- renamed lightweight: renamed from Car",
            "Automobile.paintColor renamed lightweight: renamed from color",
        ])
    }

    /// "Changing a relationship from a to-one to a to-many" is inferred; the reverse is not
    /// documented as inferable.
    func testToOneToManyOnlyOneWay() {
        func people(maxCount: Int) -> ManagedObjectModel {
            model([EntityDescription(name: "Person", properties: [.relationship(RelationshipDescription(name: "car", destinationEntityName: "Car", inverseName: nil, maxCount: maxCount))]),
                   EntityDescription(name: "Car")])
        }
        XCTAssertEqual(summary(ModelDiff(from: people(maxCount: 1), to: people(maxCount: 0))), ["Person.car changed lightweight: to-one → to-many"])
        XCTAssertEqual(summary(ModelDiff(from: people(maxCount: -1), to: people(maxCount: 1))), ["Person.car changed mappingModel: to-many → to-one"])
        // A cache's -1 and the XML's 0 both mean "no upper bound": no change.
        XCTAssertTrue(ModelDiff(from: people(maxCount: -1), to: people(maxCount: 0)).isEquivalent)
    }

    /// Moving a property up to a new parent is inferred; making an existing entity the parent
    /// of another existing root merges two hierarchies, which is not.
    func testHierarchyChanges() {
        let before = model([EntityDescription(name: "Car", properties: [attribute("wheels", .integer16)]),
                            EntityDescription(name: "Boat", properties: [])])
        let moved = model([EntityDescription(name: "Vehicle", properties: [attribute("wheels", .integer16)]),
                           EntityDescription(name: "Car", superentityName: "Vehicle"),
                           EntityDescription(name: "Boat")])
        XCTAssertEqual(summary(ModelDiff(from: before, to: moved)), [
            "Car.- changed lightweight: parent no parent → Vehicle",
            "Vehicle.- added lightweight: new entity",
            "Vehicle.wheels moved lightweight: moved from Car",
        ])
        let merged = model([EntityDescription(name: "Car", properties: [attribute("wheels", .integer16)]),
                            EntityDescription(name: "Boat", superentityName: "Car")])
        XCTAssertEqual(summary(ModelDiff(from: before, to: merged)), ["Boat.- changed mappingModel: parent no parent → Car"])
    }

    /// A delete rule or default value is not in the version hash: no migration at all.
    func testChangesTheVersionHashLeavesOut() {
        func m(_ rule: DeleteRule, _ value: String?) -> ManagedObjectModel {
            model([EntityDescription(name: "Person", properties: [
                attribute("name", default: value),
                .relationship(RelationshipDescription(name: "cars", destinationEntityName: "Person", inverseName: nil, maxCount: 0, deleteRule: rule)),
            ])])
        }
        let diff = ModelDiff(from: m(.nullify, nil), to: m(.cascade, "x"))
        XCTAssertEqual(diff.migration, .none)
        XCTAssertFalse(diff.isEquivalent)
        XCTAssertEqual(diff.verdict, "The models differ only in what version hashes leave out: a store opens with either model without migration.")
    }
}

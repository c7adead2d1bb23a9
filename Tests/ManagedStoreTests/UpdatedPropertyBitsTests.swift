import XCTest
@testable import ManagedStore

/// The ZCOLUMNS rule: bit 0 is the first property, most significant bit first; persistent
/// to-ones, then attributes, then to-manys, then transient properties, each group by name;
/// a bit past the properties, or any bit of a bitmap shorter than the model's, is `#N`.
final class UpdatedPropertyBitsTests: XCTestCase {
    let model = ManagedObjectModel(entities: [
        EntityDescription(name: "Base", properties: [
            .attribute(AttributeDescription(name: "uuid", type: .string)),
            .relationship(RelationshipDescription(name: "owner", destinationEntityName: "Owner", inverseName: "items")),
        ]),
        EntityDescription(name: "Item", superentityName: "Base", properties: [
            .attribute(AttributeDescription(name: "title", type: .string)),
            .attribute(AttributeDescription(name: "scratch", type: .string, isTransient: true)),
            .attribute(AttributeDescription(name: "amount", type: .integer64)),
            .relationship(RelationshipDescription(name: "tags", destinationEntityName: "Tag", inverseName: "item", maxCount: 0)),
            .relationship(RelationshipDescription(name: "pages", destinationEntityName: "Page", inverseName: "item", maxCount: 0,
                                                  isOrdered: true)),
            .relationship(RelationshipDescription(name: "cover", destinationEntityName: "Page", inverseName: nil)),
        ]),
    ], source: .modelCache)

    func testGroupsThenNamesInheritedAndOwnTogether() {
        let bits = UpdatedPropertyBits(entity: "Item", model: model)
        XCTAssertEqual(bits.names, ["cover", "owner", "amount", "title", "uuid", "tags", "pages", "scratch"])
        XCTAssertEqual(bits.byteCount, 1)
        XCTAssertEqual(bits.bitmap(["title"]), [0x10])
        XCTAssertEqual(bits.bitmap(["cover", "scratch"]), [0x81])
        XCTAssertEqual(bits.names([0x10]), ["title"])
    }

    /// A to-one into a hierarchy is stored as its key and its destination's entity: two bits.
    func testAToOneIntoAHierarchyTakesTwoBits() {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Syncing", isAbstract: true),
            EntityDescription(name: "Note", superentityName: "Syncing"),
            EntityDescription(name: "State", properties: [
                .attribute(AttributeDescription(name: "version", type: .integer64)),
                .relationship(RelationshipDescription(name: "object", destinationEntityName: "Syncing", inverseName: "state")),
            ]),
        ], source: .modelCache)
        let bits = UpdatedPropertyBits(entity: "State", model: model)
        XCTAssertEqual(bits.names, ["object", "object", "version"])
        XCTAssertEqual(bits.bitmap(["object"]), [0xC0])
        XCTAssertEqual(bits.names([0xE0]), ["object", "version"])
    }

    func testUnnamedBitsShowTheirNumber() {
        let bits = UpdatedPropertyBits(orderedNames: ["a", "b", "c"])
        XCTAssertEqual(bits.names([0x80 | 0x08]), ["a", "#4"])
        // Longer than the model needs: the bits it has are named, the rest numbered.
        XCTAssertEqual(bits.names([0x40, 0x01]), ["b", "#15"])
        // Shorter than the model needs: written under another numbering.
        XCTAssertEqual(UpdatedPropertyBits(orderedNames: (0..<9).map { "p\($0)" }).names([0x80]), ["#0"])
        XCTAssertEqual(bits.names([]), [])
    }

    func testBitmapsRoundTripAcrossBytes() {
        let many = UpdatedPropertyBits(orderedNames: (0..<20).map { "p\(String(format: "%02d", $0))" })
        XCTAssertEqual(many.byteCount, 3)
        let keys = ["p00", "p07", "p08", "p19", "unknown"]
        XCTAssertEqual(many.names(many.bitmap(keys)), ["p00", "p07", "p08", "p19"])
        XCTAssertEqual(many.bitmap(["p19"]), [0, 0, 0x10])
    }
}

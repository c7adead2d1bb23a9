import XCTest
@testable import ManagedStore

/// The ZCOLUMNS rule: one bit per member of Core Data's SQL entity, most significant bit
/// first: to-one keys (inherited first), hidden foreign keys, entity keys, order keys,
/// attribute columns (inherited first, composites by element), to-manys, many-to-manys;
/// transients have no bit. A bit past the members, or any bit of a bitmap shorter than the
/// model's, is `#N`; a hidden foreign key's bit names nothing.
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
        EntityDescription(name: "Owner", properties: [
            .relationship(RelationshipDescription(name: "items", destinationEntityName: "Base", inverseName: "owner", maxCount: 0,
                                                  isOrdered: true)),
            // No inverse: Core Data keeps a hidden key for it in Base's table.
            .relationship(RelationshipDescription(name: "watched", destinationEntityName: "Base", inverseName: nil, maxCount: 0)),
        ]),
    ], source: .modelCache)

    func testGroupsInheritedFirstThenByNameTransientsLeftOut() {
        let bits = UpdatedPropertyBits(entity: "Item", model: model)
        // owner's inverse is ordered: it has an order key; Owner.watched adds a hidden key.
        XCTAssertEqual(Array(bits.names.prefix(7)), ["owner", "cover", nil, "owner", "uuid", "amount", "title"])
        XCTAssertEqual(Set(bits.names.suffix(2).compactMap { $0 }), ["tags", "pages"])
        XCTAssertEqual(bits.names.count, 9)
        XCTAssertEqual(bits.byteCount, 2)
        XCTAssertEqual(bits.bitmap(["title"]), [0x02, 0x00])
        // A to-one sets its key and its order key.
        XCTAssertEqual(bits.bitmap(["owner"]), [0x90, 0x00])
        XCTAssertEqual(bits.names([0x10, 0x00]), ["owner"])
        // The hidden key's bit names nothing.
        XCTAssertEqual(bits.names([0x20, 0x00]), [])
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
        // Re-pointed to another object of the same entity: the entity-key column is unchanged.
        XCTAssertEqual(bits.bitmap([UpdatedPropertyBits.sameEntity("object")]), [0x80])
    }

    /// Each element of a composite has a bit of its own, named after the composite; the
    /// writer marks only the element that changed.
    func testCompositeElementsEachTakeABit() {
        var author = AttributeDescription(name: "author", type: .composite)
        author.elements = [AttributeDescription(name: "person", type: .string), AttributeDescription(name: "id", type: .uuid)]
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Quote", properties: [
                .attribute(author),
                .attribute(AttributeDescription(name: "id", type: .uuid)),
                .attribute(AttributeDescription(name: "text", type: .string)),
            ]),
        ], source: .modelCache)
        let bits = UpdatedPropertyBits(entity: "Quote", model: model)
        XCTAssertEqual(bits.names, ["author", "author", "id", "text"])
        XCTAssertEqual(bits.bitmap(["author.id"]), [0x40])
        XCTAssertEqual(bits.bitmap(["author"]), [0xC0])
        XCTAssertEqual(bits.names([0x60]), ["author", "id"])
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

    /// CFString's hash as CoreFoundation computes it (values from the algorithm in
    /// `CFString.c`, worked by hand for the short cases), and the dictionary order it gives.
    func testCFStringHashAndDictionaryOrder() {
        XCTAssertEqual(CFDictionaryOrder.hash(""), 0)
        // "a": length 1, then 1 * 257 + 97 = 354, plus 354 << 1.
        XCTAssertEqual(CFDictionaryOrder.hash("a"), 354 + (354 << 1))
        let keys = ["Z_PK", "Z_ENT", "Z_OPT", "books", "author"]
        let order = CFDictionaryOrder.enumerationOrder(of: keys)
        XCTAssertEqual(Set(order), Set(keys))
        XCTAssertEqual(order, CFDictionaryOrder.enumerationOrder(of: keys))
    }
}

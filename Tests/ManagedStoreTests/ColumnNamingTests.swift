import XCTest
@testable import ManagedStore

final class ColumnNamingTests: XCTestCase {
    /// Siblings in one table declaring the same name: suffixes in `Z_ENT` order.
    func testCollidingNamesGetSuffixesInEntityOrder() {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Object", properties: [.attribute(AttributeDescription(name: "identifier", type: .string))]),
            EntityDescription(name: "Note", superentityName: "Object", properties: [
                .attribute(AttributeDescription(name: "title", type: .string)),
                .relationship(RelationshipDescription(name: "account", destinationEntityName: "Object", inverseName: nil)),
            ]),
            EntityDescription(name: "Attachment", superentityName: "Object", properties: [
                .attribute(AttributeDescription(name: "title", type: .string)),
                .attribute(AttributeDescription(name: "scratch", type: .string, isTransient: true)),
            ]),
            EntityDescription(name: "Folder", superentityName: "Object", properties: [
                .attribute(AttributeDescription(name: "title", type: .string)),
                .relationship(RelationshipDescription(name: "account", destinationEntityName: "Object", inverseName: nil)),
            ]),
        ], source: .modelCache)
        let ids = ColumnNaming.entityIDs(model)
        XCTAssertEqual(ids, ["Object": 1, "Attachment": 2, "Folder": 3, "Note": 4])
        let columns = ColumnNaming.rowColumns(root: "Object", model: model, ids: ids)
        XCTAssertEqual(ColumnNaming.column(in: columns, declaredBy: "Attachment", property: "title"), "ZTITLE")
        XCTAssertEqual(ColumnNaming.column(in: columns, declaredBy: "Folder", property: "title"), "ZTITLE1")
        XCTAssertEqual(ColumnNaming.column(in: columns, declaredBy: "Note", property: "title"), "ZTITLE2")
        XCTAssertEqual(ColumnNaming.column(in: columns, declaredBy: "Folder", property: "account"), "ZACCOUNT")
        XCTAssertEqual(ColumnNaming.column(in: columns, declaredBy: "Note", property: "account"), "ZACCOUNT1")
        XCTAssertNil(ColumnNaming.column(in: columns, declaredBy: "Attachment", property: "scratch"))
    }
}

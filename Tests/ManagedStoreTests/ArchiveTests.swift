import TestSupport
import XCTest
@testable import ManagedStore

final class ArchiveTests: XCTestCase {
    let sample: PropertyListValue = .dictionary([
        (.string("NSStoreType"), .string("SQLite")),
        (.string("version"), .integer(1344)),
        (.string("big"), .integer(-5_000_000_000)),
        (.string("ratio"), .real(0.25)),
        (.string("when"), .date(700_000_000)),
        (.string("ok"), .bool(true)),
        (.string("blob"), .data(Array(0..<40))),
        (.string("ünïcode"), .string("日本語 ✓")),
        (.string("refs"), .array([.uid(1), .uid(300), .null])),
        (.string("long"), .string(String(repeating: "x", count: 70_000))),
    ])

    func testBinaryPropertyListRoundTrip() throws {
        let bytes = BinaryPropertyListWriter.encode(sample)
        XCTAssertEqual(Array(bytes.prefix(8)), Array("bplist00".utf8))
        XCTAssertEqual(try BinaryPropertyList.decode(bytes), sample)
    }

    /// Cut or scribbled property lists are errors, never crashes or hangs.
    func testDamagedPropertyListsFailCleanly() throws {
        let bytes = BinaryPropertyListWriter.encode(sample)
        var rng = SeededGenerator(seed: 0x5EED_B9A1)
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 300)) {
            _ = try? BinaryPropertyList.decode(Array(bytes.prefix(length)))
        }
        for _ in 0..<3000 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                mutated[Int.random(in: 0..<mutated.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            _ = try? BinaryPropertyList.decode(mutated)
        }
        XCTAssertThrowsError(try BinaryPropertyList.decode(Array("not a plist at all, just text....................".utf8)))
    }

    func testRawDeflateRoundTripAndCorruption() throws {
        let input = Array(String(repeating: "Core Data model cache ", count: 500).utf8)
        let compressed = try RawDeflate.deflate(input)
        XCTAssertLessThan(compressed.count, input.count / 10)
        XCTAssertEqual(try RawInflate.inflate(compressed), input)
        XCTAssertThrowsError(try RawInflate.inflate(Array(compressed.prefix(compressed.count / 2))))
        XCTAssertThrowsError(try RawInflate.inflate(compressed, limit: 100))
    }

    func testModelSurvivesArchiveAndCacheRoundTrip() throws {
        let model = ManagedObjectModel(entities: [
            // Properties in name order and class names set: the form the reader returns.
            EntityDescription(name: "Car", className: "Car", properties: [
                .relationship(RelationshipDescription(name: "owner", destinationEntityName: "Person", inverseName: "cars")),
                .attribute(AttributeDescription(name: "plate", type: .string, isOptional: false)),
            ]),
            EntityDescription(name: "SportsCar", className: "SportsCar", superentityName: "Car", properties: [
                .attribute(AttributeDescription(name: "topSpeed", type: .integer32)),
            ], renamingIdentifier: "FastCar"),
            EntityDescription(name: "Person", className: "Person", isAbstract: true, properties: [
                .relationship(RelationshipDescription(name: "cars", destinationEntityName: "Car", inverseName: "owner",
                                                      maxCount: 0, deleteRule: .cascade, isOrdered: true)),
            ]),
        ], source: .modelCache)
        let blob = try RawDeflate.deflate(BinaryPropertyListWriter.encode(ModelArchiver.archive(model)))
        let decoded = try ModelCacheReader.model(fromCompressed: blob)
        XCTAssertEqual(decoded.entities, model.entities)
        // Inherited properties are archived again under the sub-entity but not declared by it.
        XCTAssertEqual(decoded.entity(named: "SportsCar")?.properties.map(\.name), ["topSpeed"])
        XCTAssertEqual(decoded.allProperties(of: "SportsCar").map(\.property.name), ["owner", "plate", "topSpeed"])
    }

    /// A cache Core Data wrote before fetch indexes (framework 847) marks an indexed attribute
    /// `NSIsIndexed` and lists an entity's `NSCompoundIndexes` as arrays of names (Wire's
    /// 2.31.0 cache: `normalizedName`, and `internalIsArchived`, `lastModifiedDate`). They
    /// read as the fetch indexes a model file's `indexed="YES"` and `<compoundIndex>` read as,
    /// so an old store's cache and the next model file compare by what they index.
    func testAnOlderCachesIndexFormsReadAsTheFetchIndexesOfTheSameForms() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "User", properties: [
                .attribute(AttributeDescription(name: "archived", type: .boolean)),
                .attribute(AttributeDescription(name: "normalizedName", type: .string)),
                .attribute(AttributeDescription(name: "seen", type: .date)),
            ]),
        ], source: .modelCache)
        guard case .dictionary(var top) = ModelArchiver.archive(model), let slot = top.firstIndex(where: { $0.key == .string("$objects") }),
              case .array(var objects) = top[slot].value else { return XCTFail("not a keyed archive") }
        func named(_ key: String, _ name: String) -> Int? {
            objects.firstIndex { object in
                guard case .dictionary(let pairs) = object, case .uid(let i)? = pairs.first(where: { $0.key == .string(key) })?.value else { return false }
                return objects[i] == .string(name)
            }
        }
        let attribute = try XCTUnwrap(named("NSPropertyName", "normalizedName")), entity = try XCTUnwrap(named("NSEntityName", "User"))
        guard case .dictionary(let attributeFields) = objects[attribute], case .dictionary(let entityFields) = objects[entity] else { return XCTFail() }
        objects[attribute] = .dictionary(attributeFields + [(.string("NSIsIndexed"), .bool(true))])
        objects.append(.string("archived")); let a = objects.count - 1
        objects.append(.string("seen")); let b = objects.count - 1
        let arrayClass = try XCTUnwrap(objects.firstIndex { $0["$classname"] == .string("NSArray") } ?? {
            objects.append(.dictionary([(.string("$classname"), .string("NSArray")), (.string("$classes"), .array([.string("NSArray"), .string("NSObject")]))]))
            return objects.count - 1
        }())
        objects.append(.dictionary([(.string("NS.objects"), .array([.uid(a), .uid(b)])), (.string("$class"), .uid(arrayClass))])); let pair = objects.count - 1
        objects.append(.dictionary([(.string("NS.objects"), .array([.uid(pair)])), (.string("$class"), .uid(arrayClass))])); let list = objects.count - 1
        objects[entity] = .dictionary(entityFields + [(.string("NSCompoundIndexes"), .uid(list))])
        top[slot].value = .array(objects)
        let decoded = try ModelCacheReader.model(fromCompressed: RawDeflate.deflate(BinaryPropertyListWriter.encode(.dictionary(top))))
        let indexes = try XCTUnwrap(decoded.entity(named: "User")).fetchIndexes
        XCTAssertEqual(indexes.map(\.name), ["normalizedName", "archived_seen"])
        XCTAssertEqual(indexes.map { $0.elements.map(\.propertyName) }, [["normalizedName"], ["archived", "seen"]])
    }

    /// An entity whose model names no class is archived with none (`NSClassNameForEntity`
    /// is `$null` in the caches Core Data wrote for Photos, Notes and CartKit), so that
    /// `create`'s model cache reads back as the model it was made from; it was archived
    /// under the entity's own name (found by FuzzModelXML's round trip).
    func testAnEntityWithoutAClassIsArchivedWithNone() throws {
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Book", properties: [.attribute(AttributeDescription(name: "title", type: .string))]),
            EntityDescription(name: "User", className: "AppUser", properties: []),
        ], source: .modelCache)
        let decoded = try ModelCacheReader.model(fromCompressed: RawDeflate.deflate(BinaryPropertyListWriter.encode(ModelArchiver.archive(model))))
        XCTAssertNil(decoded.entity(named: "Book")?.className)
        XCTAssertEqual(decoded.entity(named: "User")?.className, "AppUser")
    }

    /// Fetch indexes are archived as Core Data archives them, so that `create`'s model cache
    /// keeps them (they were dropped; found by FuzzModelXML's round trip).
    func testFetchIndexesAreArchived() throws {
        let indexes = [FetchIndexDescription(name: "byMakerAndPlate", elements: [.init(propertyName: "maker"),
                                                                                 .init(propertyName: "plate", isAscending: false)]),
                       FetchIndexDescription(name: "byPlace", elements: [.init(propertyName: "place", isRTree: true)])]
        let model = ManagedObjectModel(entities: [
            EntityDescription(name: "Car", properties: [.attribute(AttributeDescription(name: "maker", type: .string)),
                                                        .attribute(AttributeDescription(name: "place", type: .string)),
                                                        .attribute(AttributeDescription(name: "plate", type: .string))],
                              fetchIndexes: indexes),
        ], source: .modelCache)
        let decoded = try ModelCacheReader.model(fromCompressed: RawDeflate.deflate(BinaryPropertyListWriter.encode(ModelArchiver.archive(model))))
        XCTAssertEqual(decoded.entity(named: "Car")?.fetchIndexes, indexes)
    }
}

import TestSupport
import XCTest
@testable import ManagedStore

/// Transformable values as `NSKeyedArchiver` writes them, read back without Foundation's
/// unarchiver: each Foundation type becomes its JSON shape, app classes keep name and fields.
final class KeyedUnarchiverTests: XCTestCase {
    /// A keyed archive of `objects` (index 0 is `$null`, added here) with the root at `root`.
    func archive(_ objects: [PropertyListValue], root: Int = 1) -> [UInt8] {
        BinaryPropertyListWriter.encode(.dictionary([
            (.string("$archiver"), .string("NSKeyedArchiver")),
            (.string("$version"), .integer(100000)),
            (.string("$top"), .dictionary([(.string("root"), .uid(root))])),
            (.string("$objects"), .array([.string("$null")] + objects)),
        ]))
    }

    func classEntry(_ name: String) -> PropertyListValue {
        .dictionary([(.string("$classname"), .string(name)), (.string("$classes"), .array([.string(name), .string("NSObject")]))])
    }

    func object(_ fields: [(String, PropertyListValue)], classAt index: Int) -> PropertyListValue {
        .dictionary(fields.map { (.string($0.0), $0.1) } + [(.string("$class"), .uid(index))])
    }

    /// The shape Photos stores in ZGLOBALKEYVALUES: a dictionary of a bool and a date.
    func testDictionaryOfFoundationValues() throws {
        let bytes = archive([
            object([("NS.keys", .array([.uid(2), .uid(3), .uid(8)])), ("NS.objects", .array([.uid(4), .uid(5), .uid(9)]))], classAt: 7),
            .string("Imported"), .string("ImportedDate"), .bool(true),
            object([("NS.time", .real(627_059_590.5))], classAt: 6), classEntry("NSDate"), classEntry("NSDictionary"),
            .string("id"),
            object([("NS.uuidbytes", .data([0x84, 0xCD, 0x67, 0x1C, 0x04, 0x88, 0x4C, 0x86, 0x97, 0xA6, 0x8F, 0x17, 0xD5, 0xCF, 0x71, 0x91]))], classAt: 10),
            classEntry("NSUUID"),
        ])
        XCTAssertEqual(try KeyedUnarchiver.value(of: bytes), .dictionary([
            .init("Imported", .bool(true)), .init("ImportedDate", .date(627_059_590.5)),
            .init("id", .string("84CD671C-0488-4C86-97A6-8F17D5CF7191")),
        ]))
        XCTAssertEqual(try KeyedUnarchiver.classNames(in: bytes), ["NSDate", "NSDictionary", "NSUUID"])
    }

    func testCollectionsURLsNullAndStrings() throws {
        let bytes = archive([
            object([("NS.objects", .array([.uid(2), .uid(4), .uid(6), .uid(8), .uid(10)]))], classAt: 3),
            .integer(42), classEntry("NSMutableArray"),
            object([("NS.base", .uid(0)), ("NS.relative", .uid(5))], classAt: 11), .string("https://example.com/a b"),
            object([], classAt: 7), classEntry("NSNull"),
            object([("NS.objects", .array([.uid(9)]))], classAt: 12), .real(2.5),
            object([("NS.string", .string("mutable"))], classAt: 13),
            classEntry("NSURL"), classEntry("NSSet"), classEntry("NSMutableString"),
        ])
        XCTAssertEqual(try KeyedUnarchiver.value(of: bytes), .array([
            .integer(42), .string("https://example.com/a b"), .null, .array([.real(2.5)]), .string("mutable"),
        ]))
    }

    /// An attributed string gives its text and the names of the attributes on its runs.
    func testAttributedStringGivesTextAndAttributeNames() throws {
        let bytes = archive([
            object([("NSString", .uid(2)), ("NSAttributes", .uid(4))], classAt: 7),
            object([("NS.string", .string("Hello, world"))], classAt: 3), classEntry("NSMutableString"),
            object([("NS.keys", .array([.uid(5)])), ("NS.objects", .array([.uid(6)]))], classAt: 8),
            .string("NSFont"), .string("Helvetica"),
            classEntry("NSAttributedString"), classEntry("NSDictionary"),
        ])
        XCTAssertEqual(try KeyedUnarchiver.value(of: bytes), .dictionary([
            .init("string", .string("Hello, world")), .init("attributes", .array([.string("NSFont")])),
        ]))
    }

    func testGeometryAndColours() throws {
        let point = archive([object([("NS.pointval", .string("{1.5, -2}")), ("NS.special", .integer(1))], classAt: 2), classEntry("NSValue")])
        XCTAssertEqual(try KeyedUnarchiver.value(of: point), .dictionary([.init("x", .real(1.5)), .init("y", .real(-2))]))
        let rect = archive([object([("NS.rectval", .string("{{0, 0}, {320, 480}}"))], classAt: 2), classEntry("NSValue")])
        XCTAssertEqual(try KeyedUnarchiver.value(of: rect), .dictionary([.init("x", .real(0)), .init("y", .real(0)), .init("width", .real(320)), .init("height", .real(480))]))
        let range = archive([object([("NS.rangeval.location", .integer(3)), ("NS.rangeval.length", .integer(7))], classAt: 2), classEntry("NSValue")])
        XCTAssertEqual(try KeyedUnarchiver.value(of: range), .dictionary([.init("location", .integer(3)), .init("length", .integer(7))]))
        let uiColor = archive([object([("UIRed", .real(1)), ("UIGreen", .real(0.5)), ("UIBlue", .real(0)), ("UIAlpha", .real(0.25))], classAt: 2), classEntry("UIColor")])
        XCTAssertEqual(try KeyedUnarchiver.value(of: uiColor), .dictionary([.init("red", .real(1)), .init("green", .real(0.5)), .init("blue", .real(0)), .init("alpha", .real(0.25))]))
        let nsColor = archive([object([("NSColorSpace", .integer(1)), ("NSRGB", .data(Array("0.1 0.2 0.3\0".utf8)))], classAt: 2), classEntry("NSColor")])
        XCTAssertEqual(try KeyedUnarchiver.value(of: nsColor), .dictionary([.init("red", .real(0.1)), .init("green", .real(0.2)), .init("blue", .real(0.3)), .init("alpha", .real(1))]))
    }

    /// An app's own class (CoreDataPlus archives `Cover` this way): its name and fields.
    func testUnknownClassKeepsItsNameAndFields() throws {
        let bytes = archive([object([("text", .uid(2)), ("pages", .integer(3))], classAt: 3), .string("default cover"), classEntry("CoreDataPlus_Tests.Cover")])
        XCTAssertEqual(try KeyedUnarchiver.value(of: bytes), .object(className: "CoreDataPlus_Tests.Cover", fields: [
            .init("pages", .integer(3)), .init("text", .string("default cover")),
        ]))
    }

    /// Parent and child pointing at each other end in a `.cycle`, not in a stack overflow.
    func testCyclesAreCutNotFollowed() throws {
        let bytes = archive([
            object([("child", .uid(2))], classAt: 3), object([("parent", .uid(1))], classAt: 3), classEntry("Node"),
        ])
        XCTAssertEqual(try KeyedUnarchiver.value(of: bytes), .object(className: "Node", fields: [
            .init("child", .object(className: "Node", fields: [.init("parent", .cycle(1))])),
        ]))
    }

    /// References stored as objects of their own (found by the fuzz test below: they once
    /// looped until the stack ran out) end in `.cycle`; a long chain of them is refused.
    func testReferenceChainsEndInsteadOfOverflowing() throws {
        XCTAssertEqual(try KeyedUnarchiver.value(of: archive([.uid(2), .uid(1)])), .cycle(1))
        let chain: [PropertyListValue] = (1...5000).map { .uid($0 + 1) } + [.string("end")]
        XCTAssertThrowsError(try KeyedUnarchiver.value(of: archive(chain))) { error in
            XCTAssertEqual(error as? KeyedUnarchiver.Error, .malformed("objects nest deeper than \(KeyedUnarchiver.depthLimit) levels"))
        }
    }

    /// Shared references that would expand exponentially are refused, not expanded.
    func testExponentialSharingIsRefused() throws {
        // Object i is an array holding object i+1 twice: 2^40 leaves if expanded.
        var objects: [PropertyListValue] = []
        for i in 1...40 { objects.append(object([("NS.objects", .array([.uid(i + 1), .uid(i + 1)]))], classAt: 42)) }
        objects.append(.string("leaf"))
        objects.append(classEntry("NSArray"))
        XCTAssertThrowsError(try KeyedUnarchiver.value(of: archive(objects))) { error in
            XCTAssertEqual(error as? KeyedUnarchiver.Error, .tooLarge(10_000))
        }
    }

    /// Issue 67's 185 bytes: objects each holding six references to the next level, eight
    /// levels deep (6^8 values if expanded). Measured object by object, it is refused before
    /// a single value is expanded; the same archive was once expanded to the million-value cap,
    /// 18 seconds for 125 rows. (Its file is in FuzzTesting/FailCases, replayed by
    /// FailCaseTests.)
    func testSharedReferencesAreMeasuredOnceAndRefused() throws {
        let bytes = try XCTUnwrap(Self.hex("62706c6973743030d2010203065424746f7058246f626a65637473d1040554726f6f748001aa07080a0c0e101214161855246e756c6ca60909090909098002a60b0b0b0b0b0b8003a60d0d0d0d0d0d8004a60f0f0f0f0f0f8005a61111111111118006a61313131313138007a61515151515158008a617171717171780095178080d121b1e232530363d3f46484f51585a61636a6c73757c7e0000000000000101000000000000001900000000000000000000000000000080"))
        XCTAssertEqual(bytes.count, 185)
        let archive = try KeyedArchive(try BinaryPropertyList.decode(bytes))
        XCTAssertGreaterThan(ExpansionMeasure(archive).size(of: archive.root, limit: Int.max), 1_000_000, "6^8 values if expanded")
        XCTAssertThrowsError(try KeyedUnarchiver.value(of: bytes)) { error in
            XCTAssertEqual(error as? KeyedUnarchiver.Error, .tooLarge(10_000))
        }
        XCTAssertThrowsError(try KeyedUnarchiver.classNames(in: bytes))
    }

    /// Ordinary sharing still decodes whole: NSKeyedArchiver stores an equal string once, and
    /// every place that holds it shows it.
    func testOrdinarySharingIsShownAtEveryPlace() throws {
        let members: [PropertyListValue] = Array(repeating: .uid(3), count: 500)
        let bytes = archive([object([("NS.objects", .array(members))], classAt: 2), classEntry("NSArray"), .string("same")])
        XCTAssertEqual(try KeyedUnarchiver.value(of: bytes), .array(Array(repeating: .string("same"), count: 500)))
    }

    static func hex(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    func testPlainPropertyListsAndOtherBytes() throws {
        let plist = BinaryPropertyListWriter.encode(.dictionary([(.string("a"), .array([.integer(1), .string("x")]))]))
        XCTAssertEqual(try KeyedUnarchiver.value(of: plist), .dictionary([.init("a", .array([.integer(1), .string("x")]))]))
        XCTAssertThrowsError(try KeyedUnarchiver.value(of: Array("{\"json\": true}".utf8))) { error in
            XCTAssertEqual(error as? KeyedUnarchiver.Error, .notAnArchive)
        }
    }

    /// Damaged archives are errors or values, never crashes.
    func testDamagedArchivesFailCleanly() throws {
        let bytes = archive([
            object([("NS.keys", .array([.uid(2), .uid(6)])), ("NS.objects", .array([.uid(3), .uid(7)]))], classAt: 4),
            .string("k"), object([("NS.time", .real(1))], classAt: 5), classEntry("NSDictionary"), classEntry("NSDate"),
            .string("list"), object([("NS.objects", .array([.uid(1), .uid(8), .uid(9)]))], classAt: 10),
            object([("child", .uid(7)), ("NSString", .uid(2))], classAt: 11), .uid(8),
            classEntry("NSArray"), classEntry("NSAttributedString"),
        ])
        var rng = SeededGenerator(seed: 0x5EED_A7C1)
        // Each outcome is a value or one of the decoders' own errors, never anything else.
        var values = 0, refusals = 0
        func outcome(_ body: () throws -> Void) {
            do {
                try body()
                values += 1
            } catch is KeyedUnarchiver.Error {
                refusals += 1
            } catch is BinaryPropertyList.Error {
                refusals += 1
            } catch {
                XCTFail("\(rng): an error of another kind: \(error)")
            }
        }
        for length in 0..<bytes.count { outcome { _ = try KeyedUnarchiver.value(of: Array(bytes.prefix(length))) } }
        XCTAssertEqual(values, 0, "a cut archive is refused")
        for _ in 0..<20_000 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                mutated[Int.random(in: 8..<mutated.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            outcome { _ = try KeyedUnarchiver.value(of: mutated) }
            outcome { _ = try KeyedUnarchiver.classNames(in: mutated) }
        }
        // Scribbles land both in values (a string's bytes) and in structure.
        XCTAssertGreaterThan(values, 0, "\(rng)")
        XCTAssertGreaterThan(refusals, bytes.count, "\(rng)")
    }
}

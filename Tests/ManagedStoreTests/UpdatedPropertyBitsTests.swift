import XCTest
@testable import ManagedStore

/// The ZCOLUMNS rule: bit 0 unnamed, bit i the (i-1)th property by name, most significant
/// bit first; a bitmap of another length names nothing.
final class UpdatedPropertyBitsTests: XCTestCase {
    let bits = UpdatedPropertyBits(names: ["note", "data", "cryptoTag", "cryptoInitializationVector"])

    func testNotesNoteDataBitThreeIsData() {
        XCTAssertEqual(bits.byteCount, 1)
        XCTAssertEqual(bits.names([0x10]), ["data"])
        XCTAssertEqual(bits.bitmap(["data"]), [0x10])
    }

    func testUnnamedBitsShowTheirNumber() {
        XCTAssertEqual(bits.names([0x80 | 0x08 | 0x04]), ["#0", "note", "#5"])
        // Written under a model with more properties: two bytes where this model needs one.
        XCTAssertEqual(bits.names([0x10, 0x01]), ["#3", "#15"])
        XCTAssertEqual(bits.names([]), [])
    }

    func testBitmapsRoundTripAcrossBytes() {
        let many = UpdatedPropertyBits(names: (0..<20).map { "p\(String(format: "%02d", $0))" })
        XCTAssertEqual(many.byteCount, 3)
        let keys = ["p00", "p07", "p08", "p19", "unknown"]
        XCTAssertEqual(many.names(many.bitmap(keys)), ["p00", "p07", "p08", "p19"])
    }
}

import XCTest
@testable import ManagedStore

/// The digest the version hashes are made of, against FIPS 180-4's examples and a message
/// that spans several blocks (expected values from Python's hashlib).
final class SHA256Tests: XCTestCase {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testKnownDigests() {
        XCTAssertEqual(hex(SHA256.digest([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256.digest(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // 56 bytes: the padding needs a block of its own.
        XCTAssertEqual(hex(SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let long = Array((0..<4).flatMap { _ in (0...255).map(UInt8.init) })
        XCTAssertEqual(hex(SHA256.digest(long)), "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9")
        // Fed in pieces, the same digest.
        var pieces = SHA256()
        pieces.update(long[..<100])
        pieces.update(long[100...])
        XCTAssertEqual(hex(pieces.finalize()), "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9")
    }
}

import FuzzSupport
@testable import ManagedStore

/// An `.xcdatamodel`'s `contents` XML, as `--model` and `create` read it: events to the end,
/// or one typed error with a line.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = try? ModelXMLReader.read(FuzzDriver.bytes(data, size)) { _ in }
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzModelXML_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

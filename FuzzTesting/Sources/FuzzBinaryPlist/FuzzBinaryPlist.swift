import FuzzSupport
import ManagedStore

/// A binary property list (metadata, transformables, the model archive), read and, when it
/// reads, written back and read again to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let value = try? BinaryPropertyList.decode(FuzzDriver.bytes(data, size)) else { return 0 }
    // Compared as written bytes, not as values: a NaN is not equal to itself.
    let written = BinaryPropertyListWriter.encode(value)
    let again = try? BinaryPropertyList.decode(written)
    precondition(again.map(BinaryPropertyListWriter.encode) == written, "a binary property list written back does not read as the same value")
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzBinaryPlist_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

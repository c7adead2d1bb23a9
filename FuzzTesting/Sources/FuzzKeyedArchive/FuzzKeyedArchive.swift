import FuzzSupport
import ManagedStore

/// A transformable's bytes, as a fetch and doctor read them: a value and its classes, or one
/// typed error; and what the archive's graph would expand to is bounded before it expands.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = try? KeyedUnarchiver.decode(FuzzDriver.bytes(data, size))
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzKeyedArchive_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

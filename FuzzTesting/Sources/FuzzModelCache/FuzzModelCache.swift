import FuzzSupport
import ManagedStore

/// `Z_MODELCACHE`'s bytes: raw inflate (bounded output), then the model archive, as opening
/// a store reads them: a model or one typed error.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = try? ModelCacheReader.model(fromCompressed: FuzzDriver.bytes(data, size))
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzModelCache_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

import FuzzSupport
import ManagedStore

/// One page through `recover`'s carver (seeded by the fixtures' and the forensic corpus's
/// pages): the first byte picks the table shape the cells are read as (five integers, a Core
/// Data entity table, the schema table, one blob) and page 1 or another, the rest is the page.
/// Its free space is scanned and its freed cells rebuilt, as a live leaf's, a free page's and a
/// trunk's; each must give records or none, never trap, loop or allocate without bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzDriver.bytes(data, size)
    guard let first = bytes.first else { return 0 }
    CarvingReading.carveAll(Array(bytes.dropFirst()), shape: Int(first >> 1), pageNumber: first & 1 == 1 ? 1 : 2)
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzCellCarver_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

import FuzzSupport
import ManagedStore

/// One b-tree page as the format reader reads it (seeded by the example store's and the
/// fixtures' pages): the first byte picks page 1 (after the file header) or another, the
/// rest is the page. Its header, cells, records, freeblocks and unallocated space are read;
/// each must give an answer or nil, never trap or loop.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzDriver.bytes(data, size)
    guard let first = bytes.first else { return 0 }
    let page = Array(bytes.dropFirst())
    BTreePageReading.readAll(page, pageNumber: first & 1 == 1 ? 1 : 2)
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzBTreePage_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

import FuzzSupport

let importing = ImportFuzzing(format: .csv)

/// A CSV file imported into a copy of the example store, as `cdinspect import` runs it, with
/// the options the input's first byte chooses (`ImportFuzzing`): inserts, upserts, links,
/// skip-invalid and dry runs.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    importing.run(FuzzDriver.bytes(data, size))
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzImportCSV_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

import FuzzSupport
import ManagedStore

/// A Core Data SQL debug log pasted from a console, as `profile` reads it: line by line, then
/// the summary (shapes, fault bursts, saves).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)
    var profile = SQLDebugProfile()
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) { profile.read(line) }
    profile.finish()
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzSQLDebugLog_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

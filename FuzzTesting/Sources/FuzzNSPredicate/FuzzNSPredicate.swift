import FuzzSupport
import ManagedStore

/// An NSPredicate format string, as every command's --where reads it: a predicate or one
/// typed error (nesting, lengths and specifiers bounded by the parser). What reads is written
/// back as a format string (as `explain` writes it), which must read as a predicate that
/// writes the same string again.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let predicate = try? PredicateParser.parse(String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)) else { return 0 }
    PredicateRoundTrip.check(predicate)
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzNSPredicate_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

import FuzzSupport
import ManagedStore

/// An NSPredicate format string, as every command's --where reads it: a predicate or one
/// typed error (nesting, lengths and specifiers bounded by the parser).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = try? PredicateParser.parse(String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self))
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzNSPredicate_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

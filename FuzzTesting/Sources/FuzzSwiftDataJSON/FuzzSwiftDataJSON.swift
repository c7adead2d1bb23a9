import FuzzSupport
@testable import ManagedStore

/// A SwiftData Codable value's JSON, as a store column holds it: recognised (`JSONText`, which
/// decides whether a value shows as JSON or as bytes) and, when it is JSON, its shape read as
/// `model export` reads one to declare the Codable type. Both readers must agree on what is
/// JSON, and a shape merged with itself is itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzDriver.bytes(data, size)
    let valid = JSONText.isValid(bytes)
    let shape = JSONShape(json: bytes)
    precondition(valid == (shape != nil), "JSONText and the shape reader disagree on whether this is JSON")
    if let shape { precondition(shape.merged(with: shape) == shape, "a JSON shape merged with itself changed") }
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzSwiftDataJSON_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

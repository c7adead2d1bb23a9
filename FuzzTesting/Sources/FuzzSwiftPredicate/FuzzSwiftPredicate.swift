import FuzzSupport
import ManagedStore

/// The example store's model: the types that decide how a Swift predicate reads.
let model = try? XcdatamodelReader.model(atPath: FuzzFiles.checkout + "/Examples/People.xcdatamodeld")

/// A Swift predicate (`#Predicate<Person> { $0.age > 30 }`), as `--where` reads one for a fetch
/// of Person: a predicate or one typed error. What reads is written as an NSPredicate format
/// string, which must read again and write back the same (the twin `explain` prints).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)
    guard SwiftPredicateReader.isSwift(text) || text.hasPrefix("{"),
          let predicate = try? SwiftPredicateReader.parse(text, entity: "Person", model: model) else { return 0 }
    PredicateRoundTrip.check(predicate)
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzSwiftPredicate_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

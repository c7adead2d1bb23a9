import FuzzSupport
import ManagedStore

/// An `.xcdatamodel`'s `contents` XML, as `--model` and `create` read it: a model or one typed
/// error with a line. A model that reads is written back as XML (`model export`), which must
/// read as a model that writes the same XML again; and archived as Core Data caches it in
/// `Z_MODELCACHE` (what `create` writes), which must read back as the same model.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let model = try? XcdatamodelReader.model(contents: FuzzDriver.bytes(data, size), file: "contents", source: "contents") else { return 0 }
    let written = ModelXMLWriter.contents(of: model)
    guard let again = try? XcdatamodelReader.model(contents: Array(written.utf8), file: "contents", source: "contents") else {
        preconditionFailure("a model written back as XML does not read:\n\(written)")
    }
    precondition(ModelXMLWriter.contents(of: again) == written, "a model written back as XML does not write the same again:\n\(written)")
    // Core Data's cache holds only a model Core Data loads (`loadProblem`: names unique within
    // an entity's lineage, every parent and destination an entity of the model).
    guard model.loadProblem == nil else { return 0 }
    guard let cache = try? RawDeflate.deflate(BinaryPropertyListWriter.encode(ModelArchiver.archive(model))),
          let cached = try? ModelCacheReader.model(fromCompressed: cache) else {
        preconditionFailure("a model archived as Core Data caches it does not read back:\n\(written)")
    }
    precondition(ModelXMLWriter.contents(of: cached) == written, "a model archived as Core Data caches it reads back as another:\n\(written)\n\(ModelXMLWriter.contents(of: cached))")
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzModelXML_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

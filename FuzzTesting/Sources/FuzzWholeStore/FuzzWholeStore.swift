import Foundation
import FuzzSupport
import Inspector
import ManagedStore

let folder = FuzzFiles.scratchFolder("store")
let path = folder + "/Store.sqlite"

/// A whole store file (seeded by the fixture stores, mutated anywhere: the SQLite header and
/// pages, `Z_METADATA`'s plist, `Z_MODELCACHE`, the rows), opened read-only as every read
/// command opens one, then `info`, `entities`, a first `fetch` of each entity (the first six),
/// `doctor` and `recover` (every page placed, carved and compared with the live rows), through
/// the session language as a script runs them. Each must answer or fail
/// with one error; nothing traps or hangs.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    for suffix in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    FuzzFiles.write(FuzzDriver.bytes(data, size), to: path)
    guard let store = try? PersistentStore(path: path, options: .init(readonly: true)) else { return 0 }
    defer { store.close() }
    let session = Session(store: store, format: .json, output: OutputSink(forwarding: { _ in true }), warn: { _ in }, note: { _ in })
    defer { session.close() }
    let interpreter = Interpreter(session: session)
    var lines = ["info", "entities"]
    for entity in store.mapping.entities.prefix(6) where !entity.name.contains("'") && !entity.name.contains("\\") {
        lines.append("fetch '\(entity.name)' --limit 1")
    }
    lines.append("doctor")
    lines.append("recover")
    for line in lines { _ = try? interpreter.execute(line: line) }
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzWholeStore_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

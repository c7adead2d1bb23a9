import Foundation
import FuzzSupport
import ManagedStore

let folder = FuzzFiles.scratchFolder("wal")
let path = folder + "/People.sqlite"

/// A `-wal` file beside the example store (seeded by the genuine `-wal`s and ones the seeds
/// script makes, mutated anywhere: the header, salts, checksums, commit sizes, pages), as
/// `generations` and `--generation` read it: the timeline (`StoreTimeline`, through `WALLog`),
/// then each readable generation's image opened by SQLite through `GenerationVFS` and read.
/// Each must answer or fail with one error; nothing traps, hangs or allocates without bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if !FileManager.default.fileExists(atPath: path) { FuzzFiles.copyExampleStore(to: path) }
    try? FileManager.default.removeItem(atPath: path + "-shm")
    FuzzFiles.write(FuzzDriver.bytes(data, size), to: path + "-wal")
    guard let timeline = try? StoreTimeline.read(path: path) else { return 0 }
    for entry in timeline.entries.prefix(4) + timeline.entries.suffix(2) where entry.isReadable {
        // Opening reads the schema, Z_METADATA and Z_MODELCACHE through the generation's pages.
        guard let store = try? PersistentStore(path: path, options: .init(generation: entry.token)) else { continue }
        store.close()
    }
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzWAL_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

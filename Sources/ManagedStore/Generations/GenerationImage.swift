import Foundation

/// What one generation of a store is made of on disk: the main file, and for each page the
/// newest `-wal` frame at or before the generation's commit that holds it.
///
/// SQLite reads a WAL store the same way (the newest frame up to the reader's `mxFrame`, else
/// the main file): stopping at an earlier commit reads the state after that commit exactly,
/// as long as the main file still holds what it held when the WAL began, which the `-shm`'s
/// `nBackfill` says (sqlite.org/walformat.html, "2.1"). `GenerationVFS` serves these pages to
/// SQLite as an ordinary read-only file: nothing is copied and nothing is written.
///
/// The files can change under it: the app may checkpoint (copying frames into the main file)
/// or restart the WAL (overwriting frames). Each frame read checks its salts, and each read
/// of a main-file page that a later frame wrote checks the `-shm`'s `nBackfill`; either
/// change makes every later read fail, saying why, rather than answer from another state.
public final class GenerationImage: @unchecked Sendable {
    public let mainPath: String
    public let walPath: String
    public let pageSize: Int
    /// The database's size in pages at this generation.
    public let pageCount: Int
    /// The token the generation is listed under (`w3`).
    public let token: String
    /// Page number → where its newest frame up to the commit starts in the `-wal`.
    let framePages: [UInt32: Int64]
    /// Page number → the first frame after the commit that writes it: the main file's copy of
    /// such a page changes if a checkpoint reaches that frame.
    let laterFrames: [UInt32: Int]
    /// The WAL header's salts the frames must carry.
    let salts: [UInt8]
    /// `nBackfill` when the image was made (0 when there is no `-shm`).
    let backfilledFrames: Int
    /// Pages read from the main file that a checkpoint had already overwritten with a later
    /// frame's copy when the image was made: the generation is not exact there.
    public let stalePages: Int
    /// Why committed transactions in the `-wal` cannot be read (the format reader's verdict,
    /// `WALLog.damage`), or nil.
    public let walDamage: String?

    private let lock = NSLock()
    private var problemText: String?

    init(mainPath: String, walPath: String, pageSize: Int, pageCount: Int, token: String, framePages: [UInt32: Int64],
         laterFrames: [UInt32: Int], salts: [UInt8], backfilledFrames: Int, walDamage: String? = nil) {
        self.walDamage = walDamage
        self.mainPath = mainPath
        self.walPath = walPath
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.token = token
        self.framePages = framePages
        self.laterFrames = laterFrames
        self.salts = salts
        self.backfilledFrames = backfilledFrames
        stalePages = backfilledFrames == 0 ? 0 : laterFrames.filter { $0.value <= backfilledFrames && framePages[$0.key] == nil }.count
    }

    /// Why the generation can no longer be read from the files, once a read found out.
    public var problem: String? { lock.withLock { problemText } }

    func fail(_ why: String) {
        lock.withLock { if problemText == nil { problemText = why } }
    }
}

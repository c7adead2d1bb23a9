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
    /// The `-wal`'s frames by page (nil without a `-wal`), and the last frame of the commit:
    /// a page is read from its newest frame up to it.
    let frames: WALPageIndex?
    let lastFrame: Int
    /// The WAL header's salts the frames must carry.
    let salts: [UInt8]
    /// `nBackfill` when the image was made (0 when there is no `-shm`).
    let backfilledFrames: Int
    /// Why committed transactions in the `-wal` cannot be read (the format reader's verdict,
    /// `WALLog.damage`), or nil.
    public let walDamage: String?

    private let lock = NSLock()
    private var problemText: String?

    init(mainPath: String, walPath: String, pageSize: Int, pageCount: Int, token: String, frames: WALPageIndex?, lastFrame: Int,
         salts: [UInt8], backfilledFrames: Int, walDamage: String? = nil) {
        self.walDamage = walDamage
        self.mainPath = mainPath
        self.walPath = walPath
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.token = token
        self.frames = frames
        self.lastFrame = lastFrame
        self.salts = salts
        self.backfilledFrames = backfilledFrames
    }

    /// Where the frame holding `page` at this generation starts in the `-wal`, or nil when the
    /// page is read from the main file.
    func frameStart(_ page: UInt32) -> Int64? {
        guard let frames, let frame = frames.frame(holding: page, upTo: lastFrame) else { return nil }
        return frames.offset(frame)
    }

    /// Reads the frame starting at `start` of the `-wal` into `frame` (a page and its header),
    /// false when it cannot be read or no longer carries the salts: the WAL was restarted.
    func readFrame(at start: Int64, wal: Int32, into frame: inout [UInt8]) -> Bool {
        let size = frame.count
        let got = frame.withUnsafeMutableBytes { pread(wal, $0.baseAddress, size, off_t(start)) }
        return got == size && frame.withUnsafeBytes { carriesSalts($0) }
    }

    /// Whether a frame (its header first) carries this WAL's salts: one written since the
    /// `-wal` was last restarted.
    func carriesSalts(_ frame: UnsafeRawBufferPointer) -> Bool {
        WALFrameHeader(frame)?.carries(salts) == true
    }

    /// The first frame after the commit that writes `page`: the main file's copy of such a
    /// page changes if a checkpoint reaches that frame.
    func laterFrame(_ page: UInt32) -> Int? {
        frames?.frame(holding: page, after: lastFrame)
    }

    /// Whether any page is read from the `-wal`.
    var readsFrames: Bool { frames != nil && lastFrame > 0 }

    /// Pages read from the main file that a checkpoint had already overwritten with a later
    /// frame's copy when the image was made: the generation is not exact there.
    public var stalePages: Int { frames?.stalePages(upTo: lastFrame, backfilled: backfilledFrames) ?? 0 }

    /// Why the generation can no longer be read from the files, once a read found out.
    public var problem: String? { lock.withLock { problemText } }

    func fail(_ why: String) {
        lock.withLock { if problemText == nil { problemText = why } }
    }
}

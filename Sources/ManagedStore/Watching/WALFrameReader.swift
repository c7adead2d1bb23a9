import Foundation

/// The pages committed transactions wrote since the last look, read from the `-wal` with no
/// lock and no read transaction (sqlite.org/walformat.html).
///
/// Frames up to the WAL index's `mxFrame` are committed and never change until the WAL is
/// restarted, and a restart changes the salts in the WAL header; so frames are read between
/// two reads of the header, and a salt that differs anywhere means the frames are not the
/// ones counted, and the caller must look at every row instead. Holding no lock is the point:
/// an app's `wal_checkpoint(TRUNCATE)` never waits for `watch`.
final class WALFrameReader {
    /// What the new frames say: the pages they wrote (the newest copy of each), or that
    /// frames were missed (the WAL was restarted, truncated or replaced) and nothing can be
    /// said from it.
    enum NewPages {
        case pages([UInt32: [UInt8]])
        case unknown
    }

    private let file: StoreFile
    private var descriptor: Int32 = -1
    private var inode: ino_t = 0
    /// Salts of the WAL generation read so far, and how many of its frames were read.
    private var salts: [UInt8] = []
    private var framesRead = 0

    init(file: StoreFile) { self.file = file }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Starts counting from `index`: what is in the WAL up to it is known already.
    func reset(to index: WALIndex?) {
        guard let index, let header = readHeader() else {
            salts = []
            framesRead = 0
            return
        }
        salts = Array(header[16..<24])
        framesRead = index.lastFrame
    }

    /// The pages of frames after those read, up to `index.lastFrame`; the reader then
    /// counts them as read. `.unknown` when the reader cannot tell.
    func newPages(upTo index: WALIndex) -> NewPages {
        guard !salts.isEmpty, let header = readHeader(), Array(header[16..<24]) == salts,
              index.header.count >= 48, Array(index.header[32..<40]) == salts, index.lastFrame >= framesRead else {
            return .unknown
        }
        let pageSize = index.pageSize
        let frameSize = pageSize + WALFrameHeader.size
        var pages: [UInt32: [UInt8]] = [:]
        var frame = [UInt8](repeating: 0, count: frameSize)
        for number in framesRead..<index.lastFrame {
            let offset = off_t(WALLog.frameOffset(number + 1, pageSize: pageSize))
            let read = frame.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, frameSize, offset) }
            guard read == frameSize, let header = frame.withUnsafeBytes({ WALFrameHeader($0) }), header.carries(salts) else { return .unknown }
            pages[header.page] = Array(frame[WALFrameHeader.size...])
        }
        // A restart while the frames were read would have changed the header's salts.
        guard let after = readHeader(), Array(after[16..<24]) == salts else { return .unknown }
        framesRead = index.lastFrame
        return .pages(pages)
    }

    /// The WAL header, from a descriptor of the file now at the path (reopened when the
    /// file was replaced; SQLite holds no lock on the `-wal`, so closing one drops none).
    private func readHeader() -> [UInt8]? {
        guard let status = StoreFile.status(file.walPath) else { return nil }
        if descriptor < 0 || status.st_ino != inode {
            if descriptor >= 0 { close(descriptor) }
            descriptor = open(file.walPath, O_RDONLY | O_NONBLOCK)
            inode = status.st_ino
            guard descriptor >= 0 else { return nil }
        }
        var header = [UInt8](repeating: 0, count: WALHeader.size)
        let read = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, WALHeader.size, 0) }
        guard read == WALHeader.size, WALHeader(header) != nil else { return nil }
        return header
    }
}

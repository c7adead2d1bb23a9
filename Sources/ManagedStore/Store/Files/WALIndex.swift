import Foundation

/// The header of a WAL store's shared-memory index (`-shm`), read straight from the file.
///
/// SQLite exposes no API for "how many frames does the WAL hold now", and a generation needs
/// it to say how far it holds the WAL back. The WAL-index header is a documented, stable
/// format (sqlite.org/walformat.html, "2.1 The WAL-Index Header"): two copies of a 48-byte
/// header in native byte order, `mxFrame` (the last valid frame) at offset 16. Reading it
/// takes no lock and changes nothing; a torn read (the copies differ) is retried.
public struct WALIndex: Sendable, Equatable {
    /// Frames in the WAL that readers may use (`mxFrame`).
    public var lastFrame: Int
    /// The database page size the WAL was written with.
    public var pageSize: Int
    /// The whole header: it changes with every commit and checkpoint (`iChange`, `mxFrame`,
    /// the salts), so two equal headers mean no transaction committed in between.
    public var header: [UInt8] = []

    /// Bytes a frame takes in the `-wal` file: its 24-byte header and one page.
    public var frameSize: Int { pageSize + 24 }

    /// Frames a checkpoint has copied into the main file (`nBackfill`).
    public var backfilledFrames = 0

    /// The header as it is now, or nil when the store has no readable `-shm` (rollback
    /// journal mode, or SQLite keeps the index in heap memory).
    public static func read(_ file: StoreFile) -> WALIndex? {
        guard file.journalMode == .wal else { return nil }
        return read(sharedMemoryPath: file.sharedMemoryPath, fallbackPageSize: file.pageSize)
    }

    /// The header of the `-shm` at `path`, parsed by the format reader (`WALIndexHeader`).
    static func read(sharedMemoryPath path: String, fallbackPageSize: Int) -> WALIndex? {
        guard let fd = SharedMemoryFile.descriptor(path) else { return nil }
        var bytes = [UInt8](repeating: 0, count: WALIndexHeader.size)
        for _ in 0..<8 {
            guard pread(fd, &bytes, WALIndexHeader.size, 0) == WALIndexHeader.size else { return nil }
            switch bytes.withUnsafeBytes(WALIndexHeader.parse) {
            case .failure(.torn): continue
            case .failure(.notInitialized): return nil
            case .success(let header):
                return WALIndex(lastFrame: header.lastFrame, pageSize: header.pageSize == 0 ? fallbackPageSize : header.pageSize,
                                header: header.raw, backfilledFrames: header.backfilledFrames)
            }
        }
        return nil
    }
}

/// Descriptors of `-shm` (and database) files, opened once and never closed.
///
/// SQLite's locks on the `-shm` are POSIX advisory locks, which belong to the process: closing
/// *any* descriptor of the file drops all of them, including the read lock that keeps a
/// query generation's snapshot alive. (Closing a FileHandle after each read let a checkpoint
/// run straight past a pinned context.) So the file is opened once per path and left open.
enum SharedMemoryFile {
    private static let lock = NSLock()
    /// Read and written only while holding `lock`.
    nonisolated(unsafe) private static var descriptors: [String: Int32] = [:]

    static func descriptor(_ path: String) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let fd = descriptors[path] { return fd }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        descriptors[path] = fd
        return fd
    }
}

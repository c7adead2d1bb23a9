import Foundation
import CSQLiteControls
import GRDBSQLite

/// An SQLite VFS that serves a `GenerationImage` as a read-only database file, so that any
/// generation the files hold is read in place by SQLite itself: no copy, no lock, no `-shm`,
/// nothing written beside the store.
///
/// The main file is answered page by page from the image's frame, else from the main file;
/// its size is the generation's; and the header's bytes 18–19 (the file format's write and
/// read versions, 2 in WAL mode) read as 1, a rollback-journal file, so that SQLite looks for
/// no `-wal`. Connections open it with `immutable=1` (no locks, no hot-journal check). Every
/// other file a connection opens (temporary files for sorting) is the platform VFS's own.
public enum GenerationVFS {
    public static let name = WindowedMappingVFS.name + "-generation"
    /// The URI parameter naming the image an open serves.
    static let parameter = "cdi_image"

    /// The name a connection opens for an image: a URI with this VFS, `immutable=1` and the
    /// image's number.
    static func openName(_ image: GenerationImage) -> String {
        install()
        return StoreFile.uri(image.mainPath, parameters: ["vfs=\(name)", "mode=ro", "immutable=1", "\(parameter)=\(register(image))"])
    }

    // MARK: The images connections may name

    private static let lock = NSLock()
    /// Read and written only while holding `lock`. Weak: an image lives as long as the store
    /// or generation that made it, and an open file retains its own.
    nonisolated(unsafe) private static var images: [Int: WeakImage] = [:]
    nonisolated(unsafe) private static var nextNumber = 1

    private struct WeakImage { weak var image: GenerationImage? }

    private static func register(_ image: GenerationImage) -> Int {
        lock.withLock {
            if let found = images.first(where: { $0.value.image === image }) { return found.key }
            images = images.filter { $0.value.image != nil }
            let number = nextNumber
            nextNumber += 1
            images[number] = WeakImage(image: image)
            return number
        }
    }

    private static func image(_ number: Int) -> GenerationImage? {
        lock.withLock { images[number]?.image }
    }

    // MARK: The VFS

    private static func install() { _ = installed }

    private static let installed: Bool = {
        guard let real = DerivedVFS.platform() else { return false }
        realVFS = real
        let vfs = DerivedVFS.copy(of: real, named: name,
                                  fileSize: max(Int32(stateOffset + MemoryLayout<UnsafeMutableRawPointer?>.stride), real.pointee.szOsFile))
        vfs.pointee.xOpen = { _, name, file, flags, outFlags in
            GenerationVFS.open(name, file!, flags, outFlags)
        }
        vfs.pointee.xAccess = { _, name, flags, result in
            // No journal or -wal beside a generation: SQLite must not go looking.
            if let name, flags == SQLITE_ACCESS_EXISTS {
                let path = String(cString: name)
                if path.hasSuffix("-journal") || path.hasSuffix("-wal") { result?.pointee = 0; return SQLITE_OK }
            }
            return GenerationVFS.realVFS.pointee.xAccess(GenerationVFS.realVFS, name, flags, result)
        }
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()

    /// Written once, inside `installed`'s initializer, before SQLite can call any of ours.
    nonisolated(unsafe) private static var realVFS: UnsafeMutablePointer<sqlite3_vfs>!

    private static let stateOffset = MemoryLayout<sqlite3_file>.stride

    private static func state(_ file: UnsafeMutablePointer<sqlite3_file>) -> OpenGeneration {
        let slot = (UnsafeMutableRawPointer(file) + stateOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        return Unmanaged<OpenGeneration>.fromOpaque(slot.pointee!).takeUnretainedValue()
    }

    private static func open(_ name: sqlite3_filename?, _ file: UnsafeMutablePointer<sqlite3_file>,
                             _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?) -> Int32 {
        file.pointee.pMethods = nil
        guard flags & SQLITE_OPEN_MAIN_DB != 0, let name, let number = sqlite3_uri_parameter(name, parameter).flatMap({ Int(String(cString: $0)) }) else {
            // Not a generation: the platform's own file, in the same memory.
            return realVFS.pointee.xOpen(realVFS, name, file, flags, outFlags)
        }
        guard let image = image(number), let opened = OpenGeneration(image) else { return SQLITE_CANTOPEN }
        let slot = (UnsafeMutableRawPointer(file) + stateOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        slot.pointee = Unmanaged.passRetained(opened).toOpaque()
        file.pointee.pMethods = UnsafePointer(methods)
        outFlags?.pointee = SQLITE_OPEN_READONLY
        return SQLITE_OK
    }

    nonisolated(unsafe) private static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: sqlite3_io_methods(
            iVersion: 1,
            xClose: { file in
                let slot = (UnsafeMutableRawPointer(file!) + GenerationVFS.stateOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
                if let state = slot.pointee { Unmanaged<OpenGeneration>.fromOpaque(state).release() }
                slot.pointee = nil
                return SQLITE_OK
            },
            xRead: { file, buffer, amount, offset in
                GenerationVFS.state(file!).read(into: buffer!, amount: Int(amount), at: Int64(offset))
            },
            xWrite: { _, _, _, _ in SQLITE_READONLY },
            xTruncate: { _, _ in SQLITE_READONLY },
            xSync: { _, _ in SQLITE_OK },
            xFileSize: { file, size in
                let image = GenerationVFS.state(file!).image
                size?.pointee = sqlite3_int64(image.pageCount) * sqlite3_int64(image.pageSize)
                return SQLITE_OK
            },
            xLock: { _, _ in SQLITE_OK },
            xUnlock: { _, _ in SQLITE_OK },
            xCheckReservedLock: { _, result in result?.pointee = 0; return SQLITE_OK },
            xFileControl: { _, _, _ in SQLITE_NOTFOUND },
            xSectorSize: { _ in 4096 },
            xDeviceCharacteristics: { _ in SQLITE_IOCAP_IMMUTABLE },
            xShmMap: nil, xShmLock: nil, xShmBarrier: nil, xShmUnmap: nil, xFetch: nil, xUnfetch: nil))
        return methods
    }()
}

/// One open of a generation: the image and the descriptors its pages are read through.
final class OpenGeneration {
    let image: GenerationImage
    /// The main file's kept descriptor (never closed: closing any descriptor of the file
    /// would drop SQLite's locks on it in this process; see `HeldDescriptors`).
    private let main: Int32
    /// The `-wal`'s, closed with the file (SQLite holds no lock on a `-wal`).
    private let wal: Int32
    private var frame: [UInt8]
    /// `nBackfill` as the current read transaction began.
    private var backfilledNow: Int

    init?(_ image: GenerationImage) {
        guard let main = HeldDescriptors.kept(image.mainPath) else { return nil }
        self.image = image
        self.main = main
        wal = image.readsFrames ? Foundation.open(image.walPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1
        if image.readsFrames && wal < 0 { return nil }
        frame = [UInt8](repeating: 0, count: image.pageSize + WALFrameHeader.size)
        backfilledNow = image.backfilledFrames
    }

    deinit { if wal >= 0 { close(wal) } }

    /// Reads `amount` bytes at `offset` of the generation's database file.
    func read(into buffer: UnsafeMutableRawPointer, amount: Int, at offset: Int64) -> Int32 {
        if image.problem != nil { return cdi_ioerr_read }
        // SQLite reads the change counter (16 bytes at 24) as each read transaction starts:
        // the moment to notice a checkpoint that moved the files under the generation.
        if offset == 24 && amount == 16, let why = checkpointProblem() { image.fail(why); return cdi_ioerr_read }
        let pageSize = Int64(image.pageSize)
        var done = 0
        while done < amount {
            let position = offset + Int64(done)
            let page = UInt32(position / pageSize) + 1
            let within = Int(position % pageSize)
            let count = min(amount - done, image.pageSize - within)
            let target = buffer + done
            guard Int(page) <= image.pageCount else {
                memset(target, 0, amount - done)
                return cdi_ioerr_short_read
            }
            if let frameStart = image.frameStart(page) {
                guard readFrame(at: frameStart) else { return cdi_ioerr_read }
                _ = frame.withUnsafeBytes { memcpy(target, $0.baseAddress! + WALFrameHeader.size + within, count) }
            } else {
                if backfilledNow > image.backfilledFrames, let later = image.laterFrame(page), later > image.backfilledFrames, backfilledNow >= later {
                    image.fail("a checkpoint has since copied later saves into the main file")
                    return cdi_ioerr_read
                }
                let got = pread(main, target, count, off_t(position))
                if got < 0 { return cdi_ioerr_read }
                if got < count { memset(target + got, 0, count - got) }
            }
            done += count
        }
        // The journal-mode bytes read as a rollback-journal file's (see `GenerationVFS`).
        for byte in DatabaseHeader.journalModeBytes where Int64(byte) >= offset && Int64(byte) < offset + Int64(amount) {
            buffer.storeBytes(of: 1, toByteOffset: Int(Int64(byte) - offset), as: UInt8.self)
        }
        return SQLITE_OK
    }

    /// Reads the frame starting at `start` into `frame`; a frame that no longer carries the
    /// salts ends the image's reading.
    private func readFrame(at start: Int64) -> Bool {
        guard image.readFrame(at: start, wal: wal, into: &frame) else {
            image.fail("the -wal was restarted and its frames overwritten since")
            return false
        }
        return true
    }

    /// Why the files no longer hold the generation, from the `-shm`: frames were
    /// backfilled past what the image allowed for, or the WAL was restarted.
    private func checkpointProblem() -> String? {
        guard image.frames != nil,
              let now = WALIndex.read(sharedMemoryPath: image.mainPath + "-shm", fallbackPageSize: image.pageSize) else { return nil }
        if now.header.count >= 40, Array(now.header[32..<40]) != image.salts {
            return "the -wal was restarted and its frames overwritten since"
        }
        backfilledNow = now.backfilledFrames
        return nil
    }
}

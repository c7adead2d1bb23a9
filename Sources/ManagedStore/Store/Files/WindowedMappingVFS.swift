import Foundation
import CSQLiteControls
import GRDBSQLite

/// A thin SQLite VFS over the platform's own ("unix") that keeps memory-mapped reads from
/// piling up in resident memory.
///
/// Why: reading a store through SQLite's memory map saves a system call and a copy per
/// page; on a store read from disk, a million-row count takes about half the time it takes
/// with one `pread` per page. (Pages cached in 4 KiB pieces, as Linux caches pages written
/// moments ago, fault in one at a time and gain nothing; `adviseLargePages` makes the pages
/// the map reads from disk come in larger ones.) But every page a mapping has touched stays
/// in the process's resident set until the mapping goes away, so scanning a 2 GB Photos
/// library would show 2 GB of memory. This
/// VFS counts SQLite's references into the map (`xFetch`/`xUnfetch`) per window of the
/// file, and once a window has no references and a few newer windows are idle, tells the
/// kernel the process no longer needs its pages (`MADV_DONTNEED`). The pages stay in the
/// page cache; only this process's mapping of them is dropped, and touching them again
/// maps them again. The map itself, its size, and every read and write remain SQLite's.
///
/// Only main database files are windowed; journals, WAL files and everything else pass
/// straight through.
public enum WindowedMappingVFS {
    /// The name SQLite knows the VFS by.
    public static let name = "cdinspect"

    /// Whether main files are read through the map at all. Linux documents that
    /// `MADV_DONTNEED` on a shared file mapping takes the pages out of the process at once
    /// (touching them again reads the file); other systems treat it as a hint (macOS may
    /// keep the pages resident). There the main file is read with `xRead`, as with
    /// `mmap_size = 0`, so resident memory is bounded by SQLite's page cache by construction.
    #if os(Linux)
    static let givesPagesBack = true
    #else
    static let givesPagesBack = false
    #endif

    /// Registers the VFS by name, once, before the first connection opens; SQLite's default
    /// stays the platform's own.
    public static func install() { _ = installed }

    private static let installed: Bool = {
        guard let real = DerivedVFS.platform() else { return false }
        realVFS = real
        let vfs = DerivedVFS.copy(of: real, named: name, fileSize: Int32(realFileOffset) + real.pointee.szOsFile)
        vfs.pointee.xOpen = { _, name, file, flags, outFlags in
            WindowedMappingVFS.open(name, file!, flags, outFlags)
        }
        // By name only: the store's connections ask for it in their URI (`StoreFile.openName`).
        return sqlite3_vfs_register(vfs, 0) == SQLITE_OK
    }()

    /// Written once, inside `installed`'s initializer (which Swift runs once, under its own
    /// lock), before SQLite can call any function of ours that reads it.
    nonisolated(unsafe) private static var realVFS: UnsafeMutablePointer<sqlite3_vfs>!

    /// Our file is SQLite's `sqlite3_file` header, then the window state, then the real file.
    private static let stateOffset = MemoryLayout<sqlite3_file>.stride
    private static let realFileOffset = stateOffset + MemoryLayout<UnsafeMutableRawPointer?>.stride

    private static func real(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file) + realFileOffset).assumingMemoryBound(to: sqlite3_file.self)
    }

    private static func statePointer(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        (UnsafeMutableRawPointer(file) + stateOffset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    private static func windows(_ file: UnsafeMutablePointer<sqlite3_file>) -> MappingWindows? {
        statePointer(file).pointee.map { Unmanaged<MappingWindows>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func methods(_ file: UnsafeMutablePointer<sqlite3_file>) -> sqlite3_io_methods {
        real(file).pointee.pMethods.pointee
    }

    private static func open(_ name: sqlite3_filename?, _ file: UnsafeMutablePointer<sqlite3_file>,
                             _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?) -> Int32 {
        file.pointee.pMethods = nil
        statePointer(file).pointee = nil
        let realFile = real(file)
        let rc = realVFS.pointee.xOpen(realVFS, name, realFile, flags, outFlags)
        // SQLite calls xClose on a file whose xOpen set methods, even when it failed.
        guard let realMethods = realFile.pointee.pMethods else { return rc }
        // The same version as the real file's, so SQLite calls nothing the real file lacks.
        file.pointee.pMethods = UnsafePointer(ioMethods[Int(min(max(realMethods.pointee.iVersion, 1), 3)) - 1])
        if flags & SQLITE_OPEN_MAIN_DB != 0, realMethods.pointee.iVersion >= 3 {
            statePointer(file).pointee = Unmanaged.passRetained(MappingWindows()).toOpaque()
        }
        return rc
    }

    /// Asks Linux to read the main file into the page cache in 2 MiB pieces where a fault
    /// on the map reads it from disk (`MADV_HUGEPAGE`, heeded when transparent huge pages
    /// are `madvise` or `always`).
    ///
    /// Why: a map's faults read the file around each fault in 4 KiB pieces, and every later
    /// run maps those pieces one at a time. On 10 million people (a 2 GB store) first read
    /// by cdinspect, `entities` then took 0.43 s on every run, 0.28 s of it in the kernel;
    /// read in 2 MiB pieces, 0.13 s. (Without the advice the kernel chose small pieces for
    /// 5 of 11 cold reads tried; with it, large ones for 8 of 8.) The price is reading up to
    /// 2 MiB from disk for a page of a store not yet cached. Pages already cached keep their
    /// pieces.
    ///
    /// Only as far as the map is known to reach: SQLite hands out the file's last page only
    /// when its map covers it, so the advice never touches memory beyond the map.
    private static func adviseLargePages(_ file: UnsafeMutablePointer<sqlite3_file>, base: UnsafeMutableRawPointer, pageSize: Int32) {
        #if os(Linux)
        let realFile = real(file)
        let methods = methods(file)
        var size: sqlite3_int64 = 0
        guard pageSize > 0, methods.xFileSize(realFile, &size) == SQLITE_OK, size >= Int64(pageSize) else { return }
        var last: UnsafeMutableRawPointer?
        let lastOffset = size - Int64(pageSize)
        guard methods.xFetch(realFile, lastOffset, pageSize, &last) == SQLITE_OK, let last else { return }
        _ = methods.xUnfetch(realFile, lastOffset, last)
        _ = madvise(base, Int(size), MADV_HUGEPAGE)
        #endif
    }

    /// The forwarding methods, as io-methods versions 1, 2 and 3. Written once, when first
    /// used (Swift initialises a static once, thread-safely), and only read after that.
    nonisolated(unsafe) private static let ioMethods: [UnsafeMutablePointer<sqlite3_io_methods>] = (1...3).map { version in
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: forwarding)
        methods.pointee.iVersion = Int32(version)
        return methods
    }

    private static let forwarding = sqlite3_io_methods(
        iVersion: 3,
        xClose: { file in
            let rc = WindowedMappingVFS.methods(file!).xClose(WindowedMappingVFS.real(file!))
            let state = WindowedMappingVFS.statePointer(file!)
            if let windows = state.pointee { Unmanaged<MappingWindows>.fromOpaque(windows).release() }
            state.pointee = nil
            return rc
        },
        xRead: { file, buffer, amount, offset in
            WindowedMappingVFS.methods(file!).xRead(WindowedMappingVFS.real(file!), buffer, amount, offset)
        },
        xWrite: { file, buffer, amount, offset in
            WindowedMappingVFS.methods(file!).xWrite(WindowedMappingVFS.real(file!), buffer, amount, offset)
        },
        xTruncate: { file, size in
            WindowedMappingVFS.windows(file!)?.forget()
            return WindowedMappingVFS.methods(file!).xTruncate(WindowedMappingVFS.real(file!), size)
        },
        xSync: { file, flags in
            WindowedMappingVFS.methods(file!).xSync(WindowedMappingVFS.real(file!), flags)
        },
        xFileSize: { file, size in
            WindowedMappingVFS.methods(file!).xFileSize(WindowedMappingVFS.real(file!), size)
        },
        xLock: { file, level in
            WindowedMappingVFS.methods(file!).xLock(WindowedMappingVFS.real(file!), level)
        },
        xUnlock: { file, level in
            WindowedMappingVFS.methods(file!).xUnlock(WindowedMappingVFS.real(file!), level)
        },
        xCheckReservedLock: { file, result in
            WindowedMappingVFS.methods(file!).xCheckReservedLock(WindowedMappingVFS.real(file!), result)
        },
        xFileControl: { file, op, argument in
            // A new map limit or a size hint can move, grow or shrink the map: forget the
            // windows, and touch nothing of the old map.
            if op == SQLITE_FCNTL_MMAP_SIZE || op == SQLITE_FCNTL_SIZE_HINT { WindowedMappingVFS.windows(file!)?.forget() }
            let code = WindowedMappingVFS.methods(file!).xFileControl(WindowedMappingVFS.real(file!), op, argument)
            // A shim names itself in front of the VFS below it ("cdinspect/unix"), as
            // SQLite's documentation of SQLITE_FCNTL_VFSNAME asks of shims.
            if op == SQLITE_FCNTL_VFSNAME, let argument {
                let slot = argument.assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self)
                let below = slot.pointee.map { String(cString: $0) }
                let named = Array((WindowedMappingVFS.name + (below.map { "/" + $0 } ?? "")).utf8CString)
                if let copy = sqlite3_malloc64(UInt64(named.count))?.assumingMemoryBound(to: CChar.self) {
                    named.withUnsafeBufferPointer { copy.update(from: $0.baseAddress!, count: named.count) }
                    if let old = slot.pointee { sqlite3_free(old) }
                    slot.pointee = copy
                }
                return SQLITE_OK
            }
            return code
        },
        xSectorSize: { file in
            WindowedMappingVFS.methods(file!).xSectorSize(WindowedMappingVFS.real(file!))
        },
        xDeviceCharacteristics: { file in
            WindowedMappingVFS.methods(file!).xDeviceCharacteristics(WindowedMappingVFS.real(file!))
        },
        xShmMap: { file, region, size, extend, pointer in
            WindowedMappingVFS.methods(file!).xShmMap(WindowedMappingVFS.real(file!), region, size, extend, pointer)
        },
        xShmLock: { file, offset, count, flags in
            WindowedMappingVFS.methods(file!).xShmLock(WindowedMappingVFS.real(file!), offset, count, flags)
        },
        xShmBarrier: { file in
            WindowedMappingVFS.methods(file!).xShmBarrier(WindowedMappingVFS.real(file!))
        },
        xShmUnmap: { file, delete in
            WindowedMappingVFS.methods(file!).xShmUnmap(WindowedMappingVFS.real(file!), delete)
        },
        xFetch: { file, offset, amount, pointer in
            if !WindowedMappingVFS.givesPagesBack, WindowedMappingVFS.windows(file!) != nil {
                // No page: SQLite reads this one with xRead instead, into its own bounded cache.
                pointer?.pointee = nil
                return SQLITE_OK
            }
            let rc = WindowedMappingVFS.methods(file!).xFetch(WindowedMappingVFS.real(file!), offset, amount, pointer)
            if rc == SQLITE_OK, let page = pointer?.pointee, let windows = WindowedMappingVFS.windows(file!) {
                if windows.fetched(page, offset: offset, length: amount) {
                    WindowedMappingVFS.adviseLargePages(file!, base: page - Int(offset), pageSize: amount)
                }
            }
            return rc
        },
        xUnfetch: { file, offset, page in
            let rc = WindowedMappingVFS.methods(file!).xUnfetch(WindowedMappingVFS.real(file!), offset, page)
            if let windows = WindowedMappingVFS.windows(file!) {
                // Without a page, SQLite is saying the map may be gone or stale.
                if page != nil { windows.released(offset: offset) } else { windows.forget() }
            }
            return rc
        })
}

/// What one file's map has handed out, per window of 2 MiB: how many pages SQLite still
/// holds. Windows with no pages held wait in a short idle list (a scan's next page is
/// usually in the same window, and an index lookup often returns to a recent one) before
/// their pages are given back.
///
/// SQLite calls `fetched` and `released` for every page it reads through the map, so this
/// is a fixed table searched from the last window used, with no allocation, hashing or
/// reference counting on that path.
final class MappingWindows {
    static let windowShift: Int64 = 21
    static let idleWindowsKept = 4
    /// Windows tracked at once. A query holds pages from a few windows at a time (one per
    /// open cursor level); a window beyond the table is simply not given back early.
    static let capacity = 32
    static let memoryPageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))

    private struct Window {
        var index: Int64 = -1
        var held = 0
        /// When it last went idle, to give back the oldest idle window first.
        var idleSince = 0
    }

    private let slots = UnsafeMutablePointer<Window>.allocate(capacity: MappingWindows.capacity)
    /// The start of the map every recorded window belongs to.
    private var mapBase: UnsafeMutableRawPointer?
    /// The end of the furthest page SQLite was handed from this map: the map is one range
    /// from its start, so everything below this lies inside it.
    private var mappedThrough: Int64 = 0
    private var last = 0
    private var idleCount = 0
    private var clock = 0

    init() { slots.initialize(repeating: Window(), count: Self.capacity) }

    deinit { slots.deallocate() }

    /// Records a page SQLite was handed; true when it comes from another map than the
    /// pages before (SQLite has just made the map).
    func fetched(_ page: UnsafeMutableRawPointer, offset: Int64, length: Int32) -> Bool {
        let base = page - Int(offset)
        let isNewMap = base != mapBase
        if isNewMap {
            // A new map (SQLite remaps only with nothing held): the old map's windows may
            // be gone, and must never be touched.
            forget()
            mapBase = base
        }
        let index = offset >> Self.windowShift
        guard let slot = find(index) ?? claim(index) else { return isNewMap }
        if slots[slot].held == 0, slots[slot].idleSince > 0 {
            slots[slot].idleSince = 0
            idleCount -= 1
        }
        slots[slot].held += 1
        mappedThrough = max(mappedThrough, offset + Int64(length))
        last = slot
        return isNewMap
    }

    func released(offset: Int64) {
        guard let slot = find(offset >> Self.windowShift), slots[slot].held > 0 else { return }
        slots[slot].held -= 1
        guard slots[slot].held == 0 else { return }
        clock += 1
        slots[slot].idleSince = clock
        idleCount += 1
        if idleCount > Self.idleWindowsKept { giveBackOldestIdle() }
    }

    /// SQLite has dropped or may move the map: nothing recorded may be touched any more.
    func forget() {
        for slot in 0..<Self.capacity { slots[slot] = Window() }
        idleCount = 0
        mapBase = nil
        mappedThrough = 0
    }

    private func find(_ index: Int64) -> Int? {
        if slots[last].index == index { return last }
        for slot in 0..<Self.capacity where slots[slot].index == index { return slot }
        return nil
    }

    /// A free slot for a new window, or nil when every slot holds pages.
    private func claim(_ index: Int64) -> Int? {
        for slot in 0..<Self.capacity where slots[slot].index < 0 {
            slots[slot] = Window(index: index)
            return slot
        }
        if idleCount > 0 {
            let slot = giveBackOldestIdle()
            slots[slot] = Window(index: index)
            return slot
        }
        return nil
    }

    /// Tells the kernel this process no longer needs the pages of the idle window that has
    /// waited longest, and frees its slot.
    @discardableResult
    private func giveBackOldestIdle() -> Int {
        var oldest = -1
        for slot in 0..<Self.capacity where slots[slot].idleSince > 0 {
            if oldest < 0 || slots[slot].idleSince < slots[oldest].idleSince { oldest = slot }
        }
        let window = slots[oldest]
        // The whole window, not only the pages SQLite was handed: the kernel maps the pages
        // around each one it faults in (64 KiB, `fault_around_bytes`), and those stayed
        // resident. On a 10M-row store whose index pages lie among the table's, `entities`
        // reached 108 MB that way. Never past the furthest page handed out, which is inside
        // the map for certain; the map's own end is aligned to memory pages.
        let start = window.index << Self.windowShift
        let end = min((window.index + 1) << Self.windowShift,
                      (mappedThrough + Self.memoryPageSize - 1) & ~(Self.memoryPageSize - 1))
        if let mapBase, end > start { _ = madvise(mapBase + Int(start), Int(end - start), MADV_DONTNEED) }
        slots[oldest] = Window()
        idleCount -= 1
        return oldest
    }
}

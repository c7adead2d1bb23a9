import Foundation
import GRDBSQLite

/// What the store file looks like on disk, checked before SQLite sees it so that every bad
/// path gets its own message instead of SQLite's generic "unable to open database file".
public struct StoreFile: Sendable {
    public enum JournalMode: String, Sendable {
        case wal
        case rollback = "delete"
    }

    public let path: String
    public let size: Int
    public let pageSize: Int
    public let journalMode: JournalMode
    /// Opened with `immutable=1`: SQLite takes no lock and creates no `-shm` or `-wal`, so
    /// nothing on disk changes, and it reads the main file only (see `immutableCopy`).
    public private(set) var isImmutable = false
    /// How long a connection waits for another process's lock before giving up, in seconds.
    public internal(set) var busyTimeout: TimeInterval = 2
    /// The generation read, when it is not the newest state read the usual way: a past one
    /// (`--generation`), or the newest read in place as evidence (`--immutable` with a
    /// `-wal`). Connections then read it through `GenerationVFS`.
    public private(set) var image: GenerationImage?

    public var walPath: String { path + "-wal" }
    public var sharedMemoryPath: String { path + "-shm" }

    public var walSize: Int? { StoreFile.status(walPath).map { Int($0.st_size) } }

    /// `stat(2)` alone: FileManager's attributes also look up the owner's user and group
    /// names, which costs more than the rest of a small command's start.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }

    /// The first `count` bytes of the file at `path` (fewer when it is shorter), read without
    /// dropping the locks SQLite holds on it in this process (see `HeldDescriptors`).
    public static func leadingBytes(of path: String, count: Int) -> [UInt8]? {
        HeldDescriptors.reading(path) { fd -> [UInt8] in
            var bytes = [UInt8](repeating: 0, count: count)
            let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, 0) }
            return Array(bytes.prefix(max(0, read)))
        }
    }

    /// The file a path names now (device and inode), to notice it deleted or replaced.
    static func identity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        status(path).map { (UInt64($0.st_dev), UInt64($0.st_ino)) }
    }

    /// Throws `StoreError.replaced` unless the path still names the file it named.
    static func checkSame(_ path: String, _ identity: (device: UInt64, inode: UInt64)?) throws {
        guard let now = self.identity(path), let identity, now == identity else { throw StoreError.replaced(path: path) }
    }

    public init(path: String) throws {
        self.path = path
        // One stat answers whether the file exists, whether it is a folder, and its size.
        guard let info = StoreFile.status(path) else { throw StoreError.notFound(path: path) }
        guard info.st_mode & S_IFMT != S_IFDIR else { throw StoreError.isDirectory(path: path) }
        // pread(2), not a FileHandle: the header is 100 bytes, and Foundation's file handles
        // cost more to set up than reading them does. The descriptor stays open: closing it
        // would drop SQLite's locks on the file (see `HeldDescriptors`).
        guard let descriptor = HeldDescriptors.kept(path) else { throw StoreError.permissionDenied(path: path) }
        var buffer = [UInt8](repeating: 0, count: 100)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 100, 0) }
        let header = Array(buffer.prefix(max(0, read)))
        size = Int(info.st_size)
        guard header.count >= 16, Array(header[0..<16]) == Array("SQLite format 3\0".utf8) else {
            throw StoreError.notSQLite(path: path)
        }
        guard header.count == 100 else {
            throw StoreError.corrupt(path: path, detail: "the file is truncated (\(size) bytes, shorter than an SQLite header)")
        }
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else {
            throw StoreError.corrupt(path: path, detail: "the header's page size (\(rawPageSize)) is invalid")
        }
        journalMode = header[18] == 2 || header[19] == 2 ? .wal : .rollback
        // The in-header page count is valid when the change counter matches the
        // version-valid-for field (SQLite 3.7.0+); a shorter file was cut off.
        let counter = header[24..<28], validFor = header[92..<96]
        let pages = header[28..<32].reduce(0) { $0 << 8 | Int($1) }
        if counter.elementsEqual(validFor), pages > 0, size < pages * pageSize {
            throw StoreError.corrupt(path: path, detail: "the file is truncated (\(size) bytes; its header says \(pages * pageSize))")
        }
        if size % pageSize != 0 {
            throw StoreError.corrupt(path: path, detail: "the file is truncated (\(size) bytes is not a whole number of \(pageSize)-byte pages)")
        }
    }

    /// The file to hand to SQLite: the path, or for an immutable open a URI.
    /// The name connections open: a URI naming cdinspect's VFS, which is registered by name
    /// and never as SQLite's default (a program that links ManagedStore beside SQLite work
    /// of its own keeps its own default), with `immutable=1` for evidence.
    var openName: String {
        if let image { return GenerationVFS.openName(image) }
        return StoreFile.uri(path, parameters: ["vfs=\(WindowedMappingVFS.name)"] + (isImmutable ? ["immutable=1"] : []))
    }

    /// `file:PATH?immutable=1`, the path percent-encoded as SQLite's URIs need it.
    static func immutableURI(_ path: String) -> String { uri(path, parameters: ["immutable=1"]) }

    /// Every byte of the path's UTF-8 but ASCII letters, digits and `/-_.~` is written as
    /// `%XX`, which SQLite decodes back to that byte. Byte by byte rather than through
    /// Foundation's character sets: `CharacterSet.alphanumerics` loads Unicode's tables,
    /// a tenth of the time a count on a small store takes, on every open.
    static func uri(_ path: String, parameters: [String]) -> String {
        var encoded: [UInt8] = Array("file:".utf8)
        encoded.reserveCapacity(path.utf8.count + 32)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self) + "?" + parameters.joined(separator: "&")
    }

    /// This file as evidence that must not change: opened with `immutable=1`, so that no
    /// lock is taken and no file created. SQLite would not read a `-wal` then, so a store
    /// whose `-wal` holds commits is read through `GenerationVFS` at its newest commit: the
    /// same state, in place.
    public func immutableCopy() throws -> StoreFile {
        if let walSize, walSize > 0 {
            let timeline = try StoreTimeline.read(path: path)
            if !timeline.commits.isEmpty { return try reading(generation: timeline.newestToken, in: timeline) }
        }
        var copy = self
        copy.isImmutable = true
        return copy
    }

    /// This file read at a generation its files hold (`StoreTimeline`'s tokens), in place.
    public func reading(generation token: String, in timeline: StoreTimeline? = nil) throws -> StoreFile {
        let timeline = try timeline ?? StoreTimeline.read(path: path)
        var copy = self
        copy.image = try timeline.image(token)
        copy.isImmutable = true
        return copy
    }

    /// A WAL store opened read-only needs a `-shm` file; SQLite creates it, which fails in a
    /// folder the user cannot write. Detect that up front to say what to do.
    func checkSharedMemory() throws {
        guard journalMode == .wal, !isImmutable, image == nil else { return }
        // stat(2) alone, as above: this runs at every open.
        if StoreFile.status(sharedMemoryPath) != nil { return }
        let fm = FileManager.default
        let folder = (path as NSString).deletingLastPathComponent
        if !fm.isWritableFile(atPath: folder.isEmpty ? "." : folder) {
            throw StoreError.sharedMemoryUnavailable(path: path)
        }
    }
}

extension StoreFile {
    /// The SQLite library the stores are read with (`sqlite3_libversion`), for `--version`:
    /// a bug report needs it, since a store's reading depends on it.
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}

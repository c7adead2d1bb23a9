import Foundation

/// Descriptors of store files this process reads beside SQLite, kept open until it exits.
///
/// POSIX record locks belong to a process and a file, not to a descriptor: closing *any*
/// descriptor of a file drops every lock the process holds on it, SQLite's included. In WAL
/// mode each connection holds a shared lock on the database file for as long as it is open,
/// and the app's last connection to close takes an exclusive one to checkpoint and delete the
/// `-wal` and `-shm`. A header read that opened and closed the file while a connection of this
/// process was open (a second store opened in the web view, the MCP server or a REPL's
/// `diff`) dropped that lock: the app then deleted the files under the open connection,
/// which from then on read a store that no longer changed, and a write through it would
/// have gone into a deleted `-wal`. SQLite keeps its own descriptors open for the same reason
/// (os_unix.c, "POSIX advisory locks are broken by design"). One descriptor per file a
/// process opens as a store is a handful; files only looked at (a search) use the kept one
/// when there is one and are closed otherwise, which drops nothing, since then no
/// connection of this process has them open.
enum HeldDescriptors {
    private struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let lock = NSLock()
    /// Read and written only while holding `lock`.
    nonisolated(unsafe) private static var held: [FileID: Int32] = [:]

    /// A descriptor of the file at `path`, read-only, kept open for the life of the process:
    /// for a file this process opens, or may open, with SQLite. nil when it cannot be opened.
    static func kept(_ path: String) -> Int32? {
        guard let id = fileID(path) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if let fd = held[id] { return fd }
        // O_NONBLOCK keeps a named pipe given as the store from hanging here until something
        // writes to it; its pread then fails.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        // The path may have been replaced between the stat and the open: key by what was opened.
        var opened = stat()
        guard fstat(fd, &opened) == 0 else { close(fd); return nil }
        let openedID = FileID(device: UInt64(opened.st_dev), inode: UInt64(opened.st_ino))
        if let existing = held[openedID] { close(fd); return existing }
        held[openedID] = fd
        return fd
    }

    /// `body` with a descriptor of the file at `path`: the kept one when this process holds
    /// one, else one opened for the call and closed after it.
    static func reading<T>(_ path: String, _ body: (Int32) throws -> T) rethrows -> T? {
        if let id = fileID(path), let fd = lock.withLock({ held[id] }) { return try body(fd) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try body(fd)
    }

    private static func fileID(_ path: String) -> FileID? {
        StoreFile.status(path).map { FileID(device: UInt64($0.st_dev), inode: UInt64($0.st_ino)) }
    }
}

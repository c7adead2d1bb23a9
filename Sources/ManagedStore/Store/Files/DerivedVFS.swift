import Foundation
import CSQLiteControls
import GRDBSQLite

/// A VFS of cdinspect's made from the platform's own: a copy of its method table under a new
/// name, with room for our state in each file. Both of cdinspect's VFSes (`WindowedMappingVFS`,
/// `GenerationVFS`) are registered by name only, never as the process's default, and replace
/// `xOpen` (and `GenerationVFS` `xAccess`) on the copy.
enum DerivedVFS {
    /// The platform's VFS (SQLite's default when first asked), or nil when SQLite has none.
    static func platform() -> UnsafeMutablePointer<sqlite3_vfs>? {
        _ = cdi_enable_uri()
        return sqlite3_vfs_find(nil)
    }

    /// A copy of `real`'s table named `name`, whose files are `fileSize` bytes.
    static func copy(of real: UnsafeMutablePointer<sqlite3_vfs>, named name: String, fileSize: Int32) -> UnsafeMutablePointer<sqlite3_vfs> {
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: real.pointee)
        vfs.pointee.pNext = nil
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.szOsFile = fileSize
        return vfs
    }
}

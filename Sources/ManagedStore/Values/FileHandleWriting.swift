import Foundation

extension FileHandle {
    /// Writes `data`, and on a write that fails (a full disk under a redirected stream, a
    /// reader gone) drops it: Foundation's `write(_:)` stops the process with a `try!` there,
    /// and a message about a failure must never become a crash of its own.
    public func writeIgnoringErrors(_ data: Data) {
        try? write(contentsOf: data)
    }
}

import Foundation

/// An object's row as a context last read it — from the store, or from its parent context
/// for a child — with the `Z_OPT` version an update is checked against. To-many
/// relationships appear once they have been read.
struct RowSnapshot {
    var values: [String: ObjectValue]
    var version: Int64
    /// When it was read (monotonic seconds), for the context's staleness interval.
    var readAt: TimeInterval

    init(values: [String: ObjectValue], version: Int64, readAt: TimeInterval = ProcessInfo.processInfo.systemUptime) {
        self.values = values
        self.version = version
        self.readAt = readAt
    }
}

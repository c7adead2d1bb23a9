import Foundation

/// A Core Data store found on disk, with where it came from: the app's container and the
/// simulator device it belongs to, when it sits in one.
public struct FoundStore: Sendable, Equatable {
    public var path: String
    /// The store file and its `-wal`, in bytes.
    public var size: Int64
    /// The newest modification of the store file and its `-wal`.
    public var modified: Date
    public var journalMode: String
    /// Entities in `Z_PRIMARYKEY` (history's own excluded); nil when the schema could not be
    /// read without opening the store for writing (a store whose tables are still all in its `-wal`).
    public var entityCount: Int?
    public var hasHistory: Bool
    public var isMirrored: Bool
    /// From the container's `.com.apple.mobile_container_manager.metadata.plist`.
    public var bundleID: String?
    /// From the device's `device.plist`.
    public var deviceName: String?
    public var runtime: String?

    /// The app's name as a user types it: the last part of its bundle identifier
    /// (`com.apple.Notes` → `Notes`; `group.com.example.shared` → `shared`).
    public var appName: String? { bundleID.flatMap { $0.split(separator: ".").last.map(String.init) } }

    /// Whether `word` names this store's app: its bundle identifier or its app name,
    /// ignoring case.
    public func belongs(to word: String) -> Bool {
        [bundleID, appName].contains { $0?.caseInsensitiveCompare(word) == .orderedSame }
    }
}

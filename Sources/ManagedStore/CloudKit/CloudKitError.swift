public enum CloudKitError: Error, CustomStringConvertible, Equatable {
    case notMirrored(path: String)

    public var description: String {
        switch self {
        case .notMirrored(let path):
            return "\(path) is not mirrored to CloudKit (it has no ANSCKRECORDMETADATA table: the app does not use NSPersistentCloudKitContainer)"
        }
    }
}

/// How a save resolves an object that changed in the store since the context read it
/// (NSMergePolicy). Each case does what Apple's documentation of the matching policy says.
public enum MergePolicy: String, Sendable, CaseIterable {
    /// NSErrorMergePolicy: the save fails and reports every conflict; nothing is written.
    case error
    /// NSMergeByPropertyStoreTrumpMergePolicy: property by property, the store's changes win
    /// over the context's; the context's changes to other properties are saved.
    case storeTrump = "store-trump"
    /// NSMergeByPropertyObjectTrumpMergePolicy: property by property, the context's changes
    /// win; the store's changes to other properties are kept.
    case objectTrump = "object-trump"
    /// NSOverwriteMergePolicy: the context's whole object is written over the store's row,
    /// including properties the context did not change.
    case overwrite
    /// NSRollbackMergePolicy: the context's changes to conflicting objects are discarded and
    /// the objects take the store's values.
    case rollback

    public var coreDataName: String {
        switch self {
        case .error: return "NSErrorMergePolicy"
        case .storeTrump: return "NSMergeByPropertyStoreTrumpMergePolicy"
        case .objectTrump: return "NSMergeByPropertyObjectTrumpMergePolicy"
        case .overwrite: return "NSOverwriteMergePolicy"
        case .rollback: return "NSRollbackMergePolicy"
        }
    }
}

/// One object whose row changed in the store after the context read it.
public struct MergeConflict: Sendable, Equatable, CustomStringConvertible {
    public let objectID: ObjectID
    /// The version the context read and the version in the store now (nil: the row is gone).
    public let cachedVersion: Int64
    public let storeVersion: Int64?
    /// Properties the store changed, and properties the context changed.
    public let storeChangedKeys: [String]
    public let contextChangedKeys: [String]

    public var description: String {
        guard let storeVersion else {
            return "\(objectID.uri): deleted in the store; this context "
                + (contextChangedKeys.isEmpty ? "deletes it" : "changed \(contextChangedKeys.joined(separator: ", "))")
        }
        return "\(objectID.uri): version \(cachedVersion) in this context, \(storeVersion) in the store; "
            + "store changed \(storeChangedKeys.isEmpty ? "(no properties)" : storeChangedKeys.joined(separator: ", ")), "
            + "this context changed \(contextChangedKeys.isEmpty ? "(nothing; it deletes the object)" : contextChangedKeys.joined(separator: ", "))"
    }
}

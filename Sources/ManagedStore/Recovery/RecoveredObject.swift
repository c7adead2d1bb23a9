import Foundation

/// An object no live row holds, read back from the store's files, in Core Data's terms: its
/// entity, object ID and values, where it was found and how sure that reading is.
public struct RecoveredObject: Sendable {
    /// Where the record was found.
    public enum Source: Sendable, Equatable {
        /// An earlier generation of the `-wal` (`generation`, the state before the save
        /// `deletedBy` deleted it): read by SQLite, exactly.
        case earlierGeneration(generation: String, deletedBy: String)
    }

    /// How sure the reading is, and why.
    public struct Confidence: Sendable, Equatable {
        public enum Level: String, Sendable { case exact }
        public let level: Level
        public let reason: String
    }

    public let object: StoreDiff.Object
    public let source: Source
    public let confidence: Confidence
    /// What the record is: a deleted object (the only state recovered so far).
    public var state: String { "deleted" }
}

/// Keys of one table that `Z_PRIMARYKEY` says were issued and no row holds: the objects they
/// named were deleted (or their saves never committed), whether or not their bytes remain.
public struct MissingKeys: Sendable, Equatable {
    /// The root entity: its table and its key sequence (`Z_MAX`) are shared by its sub-entities.
    public let entity: String
    /// The largest key issued.
    public let issued: Int64
    /// The keys below it no row holds, as ranges in order.
    public let ranges: [ClosedRange<Int64>]
    /// How many of them this recovery read back.
    public let recovered: Int

    public var count: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound + 1) } }

    /// `3-7, 12`: the ranges as a person reads them.
    public var text: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
    }
}

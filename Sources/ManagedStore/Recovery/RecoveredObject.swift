import Foundation

/// A record no live row holds, read back from the store's files, in Core Data's terms where
/// the table is an entity's (its entity, object ID and attribute values), by table and
/// column otherwise; with where it was found and how sure that reading is.
public struct RecoveredObject: Sendable {
    /// Where the record was found.
    public enum Source: Sendable, Equatable {
        /// An earlier generation of the `-wal` (`generation`, the state before the save
        /// `deletedBy` deleted it): read by SQLite, exactly.
        case earlierGeneration(generation: String, deletedBy: String)
        /// Bytes of the main file no live cell holds: page `page`, at `offset`, in `space`.
        case carved(page: UInt32, offset: Int, space: CarvedSpace)
    }

    /// The kinds of space a carved record lies in (fileformat2.html, "1.6" and "1.5").
    public enum CarvedSpace: String, Sendable {
        /// A freeblock of a live page: a freed cell, its first four bytes overwritten by the chain.
        case freeblock
        /// Between a live page's cell pointers and its cell content.
        case unallocated
        /// A page on the freelist, or in no b-tree, that still holds a leaf's cells.
        case freePage = "free-page"
    }

    /// How sure the reading is, and why.
    public struct Confidence: Sendable, Equatable {
        public enum Level: String, Sendable {
            /// Read by SQLite from a state of the store.
            case exact
            /// A whole cell whose bytes parse as a row of its table, rowid included.
            case intact
            /// A cell whose first bytes were overwritten, rebuilt from the table's column types.
            case rebuilt
        }
        public let level: Level
        public let reason: String
    }

    /// The entity, for a Core Data table's row.
    public let entity: String?
    public let table: String
    /// The object ID, where the row's key survives (a Core Data row).
    public let objectID: ObjectID?
    /// The rowid, where it survives.
    public let rowid: Int64?
    /// By attribute (a Core Data row) or column name.
    public let values: [(key: String, value: ObjectValue)]
    public let source: Source
    public let confidence: Confidence
    /// What the record is: a deleted object (or row).
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

    /// At most this many ranges are written out in `text`; the count says how many keys in all.
    public static let rangesShown = 1000

    /// `3-7, 12`: the ranges as a person reads them (the first `rangesShown`, then how many more).
    public var text: String {
        let shown = ranges.prefix(Self.rangesShown).map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
        let more = ranges.count - shown.count
        return shown.joined(separator: ", ") + (more > 0 ? ", … and \(more) more range\(more == 1 ? "" : "s")" : "")
    }
}

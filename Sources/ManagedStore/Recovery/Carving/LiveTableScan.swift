/// What one walk of a live table's leaves tells the recovery phases (`LiveRecords.scan`): the
/// digests of its rows, which a record whose rowid is lost is compared with (`LiveRowSet`),
/// and the rowids from 1 up that no row holds (`MissingKeys`, where the rowid is `Z_PK`).
/// A part is nil where the pages could not tell it (a page that does not read, a record
/// spilling onto overflow pages, keys out of order): its asker goes to SQLite instead.
struct LiveTableScan {
    /// Whether the digests were asked for (a later ask for them walks again otherwise).
    let askedForDigests: Bool
    var digests: RowDigests?
    /// The rowids no row holds, ascending, below the largest one that is at least 1.
    var keyGaps: [ClosedRange<Int64>]?
    /// One past that largest rowid (1 for a table with none).
    var nextKey: Int64 = 1

    init(askedForDigests: Bool) {
        self.askedForDigests = askedForDigests
    }
}

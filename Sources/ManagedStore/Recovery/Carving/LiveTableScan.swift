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

/// The digests and key gaps of a run of a table's cells, taken in key order: the whole table,
/// or one half of it when two threads walk it (`append` joins the halves).
struct TableWalk {
    var digests: [UInt64]?
    var gaps: [ClosedRange<Int64>]? = []
    /// One past the largest key at least 1 (or where the gaps start).
    var next: Int64 = 1
    /// The first key at least 1, where a walk not from key 1 starts its gaps.
    private var firstKey: Int64?
    private let fromKeyOne: Bool
    private var previous = Int64.min

    init(digests: Bool, fromKeyOne: Bool) {
        self.digests = digests ? [] : nil
        self.fromKeyOne = fromKeyOne
    }

    /// Takes one cell; false once neither the digests nor the gaps can be told.
    mutating func add(_ bytes: UnsafeRawBufferPointer, _ cell: BTreePage.TableCell) -> Bool {
        if digests != nil {
            if cell.payloadSize == cell.local.count, let digest = RecordDigest.of(bytes, record: cell.local) { digests!.append(digest) } else { digests = nil }
        }
        if gaps != nil {
            if cell.rowid > previous {
                previous = cell.rowid
                if cell.rowid >= 1 {
                    if firstKey == nil {
                        firstKey = cell.rowid
                        if !fromKeyOne { next = cell.rowid }
                    }
                    if cell.rowid > next { gaps!.append(next...(cell.rowid - 1)) }
                    next = cell.rowid + 1
                }
            } else {
                gaps = nil
            }
        }
        return digests != nil || gaps != nil
    }

    /// This walk followed by `higher`, the walk of the keys after it.
    mutating func append(_ higher: TableWalk) {
        if digests != nil, let more = higher.digests { digests! += more } else { digests = nil }
        guard gaps != nil, let more = higher.gaps else {
            gaps = nil
            return
        }
        guard let first = higher.firstKey else { return }
        // A tree whose halves overlap is out of order: no gaps can be told.
        guard first >= next else {
            gaps = nil
            return
        }
        if first > next { gaps!.append(next...(first - 1)) }
        gaps! += more
        next = higher.next
        if firstKey == nil { firstKey = first }
    }
}

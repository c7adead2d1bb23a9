/// Every frame of a `-wal`'s valid log, by the page it holds: built once per timeline and
/// shared by the images of all its generations, so that reading the state after commit N
/// needs no table of its own (a `-wal` of 100 MB holds some 25,000 frames; building one table
/// per commit of 8,000 commits would copy it 8,000 times).
final class WALPageIndex: Sendable {
    /// Page number → the frames that hold it, ascending.
    private let frames: [UInt32: [Int32]]
    let pageSize: Int

    init(_ log: WALLog) {
        var frames: [UInt32: [Int32]] = [:]
        for (index, frame) in log.frames.enumerated() { frames[frame.page, default: []].append(Int32(index + 1)) }
        self.frames = frames
        pageSize = log.header?.pageSize ?? 0
    }

    /// The newest frame holding `page` at or before frame `last`, or nil.
    func frame(holding page: UInt32, upTo last: Int) -> Int? {
        guard last > 0, let list = frames[page] else { return nil }
        // The last element ≤ last, by binary search.
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if Int(list[middle]) <= last { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : Int(list[low - 1])
    }

    /// The first frame holding `page` after frame `last`, or nil.
    func frame(holding page: UInt32, after last: Int) -> Int? {
        guard let list = frames[page] else { return nil }
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if Int(list[middle]) <= last { low = middle + 1 } else { high = middle }
        }
        return low < list.count ? Int(list[low]) : nil
    }

    /// Pages that frames after `last` (up to `backfilled`) hold and frames up to `last` do not:
    /// the main file's copies of them are a later state once a checkpoint copied those frames.
    func stalePages(upTo last: Int, backfilled: Int) -> Int {
        guard backfilled > last else { return 0 }
        return frames.values.filter { list in
            guard let first = list.first(where: { Int($0) > last }) else { return false }
            return Int(first) <= backfilled && !list.contains { Int($0) <= last }
        }.count
    }

    /// Where frame `number` (from 1) starts in the file.
    func offset(_ number: Int) -> Int64 { WALLog.frameOffset(number, pageSize: pageSize) }
}

/// What `watch` remembers of the rows of one table between looks: no values, only enough to
/// tell whether a row changed and which keys did. Per row its key (sorted, for the ranges a
/// page covers), `Z_ENT`, `Z_OPT`, whether it matched the watch's predicate, and one 32-bit
/// hash per watched key, in one flat array. A deleted row is marked dead and dropped when a
/// quarter of the rows are dead, so a delete costs no shift of the arrays.
///
/// A class, so that its arrays have one owner and a row is written in place: as a struct
/// held by a class, every update copied the whole hash array (480 MB at ten million rows).
final class RowSummary {
    struct Mark: Equatable {
        var entity: Int64
        var version: Int64
        var matches: Bool
    }

    /// Hashes per row: one for each key the table's watched entities have.
    let stride: Int
    private(set) var keys: [Int64] = []
    private(set) var marks: [Mark] = []
    private var alive: [Bool] = []
    private var hashes: [UInt32] = []
    private var dead = 0

    init(stride: Int) { self.stride = stride }

    var count: Int { keys.count - dead }

    /// The index of a live row with this key.
    func index(of key: Int64) -> Int? {
        let i = lowerBound(key)
        return i < keys.count && keys[i] == key && alive[i] ? i : nil
    }

    func hashes(at index: Int) -> [UInt32] { Array(hashes[index * stride..<(index + 1) * stride]) }

    /// Adds a row or replaces what is remembered of it.
    func set(_ key: Int64, _ mark: Mark, _ rowHashes: [UInt32]) {
        let i = lowerBound(key)
        if i < keys.count && keys[i] == key {
            if !alive[i] { alive[i] = true; dead -= 1 }
            marks[i] = mark
            let start = i * stride
            hashes.withUnsafeMutableBufferPointer { buffer in
                for j in 0..<min(stride, rowHashes.count) { buffer[start + j] = rowHashes[j] }
            }
            return
        }
        keys.insert(key, at: i)
        marks.insert(mark, at: i)
        alive.insert(true, at: i)
        hashes.insert(contentsOf: rowHashes, at: i * stride)
    }

    func remove(_ key: Int64) {
        guard let i = index(of: key) else { return }
        alive[i] = false
        dead += 1
        if dead > 1024 && dead * 4 > keys.count { compact() }
    }

    /// Live keys in `range`.
    func keys(in range: ClosedRange<Int64>) -> [Int64] {
        var result: [Int64] = []
        var i = lowerBound(range.lowerBound)
        while i < keys.count && keys[i] <= range.upperBound {
            if alive[i] { result.append(keys[i]) }
            i += 1
        }
        return result
    }

    /// Up to `limit` live keys below `key`, nearest first.
    func keys(below key: Int64, limit: Int) -> [Int64] {
        var result: [Int64] = []
        var i = lowerBound(key) - 1
        while i >= 0 && result.count < limit {
            if alive[i] { result.append(keys[i]) }
            i -= 1
        }
        return result
    }

    /// Up to `limit` live keys above `key`, nearest first.
    func keys(above key: Int64, limit: Int) -> [Int64] {
        var result: [Int64] = []
        var i = lowerBound(key)
        if i < keys.count && keys[i] == key { i += 1 }
        while i < keys.count && result.count < limit {
            if alive[i] { result.append(keys[i]) }
            i += 1
        }
        return result
    }

    func allKeys() -> [Int64] { zip(keys, alive).compactMap { $1 ? $0 : nil } }

    private func lowerBound(_ key: Int64) -> Int {
        var (low, high) = (0, keys.count)
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func compact() {
        var (k, m, h): ([Int64], [Mark], [UInt32]) = ([], [], [])
        k.reserveCapacity(count)
        m.reserveCapacity(count)
        h.reserveCapacity(count * stride)
        for i in keys.indices where alive[i] {
            k.append(keys[i])
            m.append(marks[i])
            h.append(contentsOf: hashes[i * stride..<(i + 1) * stride])
        }
        (keys, marks, hashes) = (k, m, h)
        alive = Array(repeating: true, count: keys.count)
        dead = 0
    }
}

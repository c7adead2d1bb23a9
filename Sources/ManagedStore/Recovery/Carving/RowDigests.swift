/// The digests of a table's live rows (`RecordDigest`), for `LiveRowSet` to ask whether a
/// carved record is one of them: 8 bytes a row, sorted once, searched by interpolation.
///
/// Digests are spread evenly over 64 bits, so a digest's place among n sorted ones is close to
/// digest / 2^64 · n: the search starts there and gallops, a few probes where a binary search
/// takes twenty, each a cache miss on a million rows.
struct RowDigests {
    private let sorted: [UInt64]

    init(_ unsorted: [UInt64]) {
        sorted = Self.radixSorted(unsorted)
    }

    func contains(_ digest: UInt64) -> Bool {
        let count = sorted.count
        guard count > 0 else { return false }
        return sorted.withUnsafeBufferPointer { list in
            let guess = min(count - 1, Int(Double(digest) / 18_446_744_073_709_551_616.0 * Double(count)))
            // Gallop from the guess to a range that holds the digest's place, then halve it.
            var low = guess, high = guess + 1
            var step = 1
            while low > 0, list[low] > digest {
                high = low
                low = max(0, low - step)
                step *= 2
            }
            step = 1
            while high < count, list[high - 1] < digest {
                low = high
                high = min(count, high + step)
                step *= 2
            }
            while low < high {
                let middle = (low + high) / 2
                if list[middle] < digest { low = middle + 1 } else { high = middle }
            }
            return low < count && list[low] == digest
        }
    }

    /// Least significant 16 bits first, four passes, one scratch array: a million digests sort
    /// in a few milliseconds where the standard library's comparison sort takes tens.
    private static func radixSorted(_ values: [UInt64]) -> [UInt64] {
        guard values.count > 64 else { return values.sorted() }
        var source = values
        var target = [UInt64](repeating: 0, count: values.count)
        var counts = [Int](repeating: 0, count: 1 << 16)
        for shift in stride(from: 0, to: 64, by: 16) {
            counts.withUnsafeMutableBufferPointer { counts in
                for index in counts.indices { counts[index] = 0 }
                source.withUnsafeBufferPointer { source in
                    for value in source { counts[Int(truncatingIfNeeded: value >> UInt64(shift)) & 0xFFFF] += 1 }
                    var total = 0
                    for index in counts.indices {
                        let count = counts[index]
                        counts[index] = total
                        total += count
                    }
                    target.withUnsafeMutableBufferPointer { target in
                        for value in source {
                            let digit = Int(truncatingIfNeeded: value >> UInt64(shift)) & 0xFFFF
                            target[counts[digit]] = value
                            counts[digit] += 1
                        }
                    }
                }
            }
            swap(&source, &target)
        }
        return source
    }
}

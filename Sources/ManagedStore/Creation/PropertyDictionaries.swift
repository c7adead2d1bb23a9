// The two hash tables Core Data files an entity's properties in while it turns a model into
// tables. Neither is today's `NSDictionary`: Core Data carries private copies of two older
// Core Foundation dictionaries, and the order their buckets hold the property names in is an
// order Core Data then walks (`PropertyWalk`). Only the keys matter here; values are not kept.
//
// Both probe linearly from a key's home bucket and read their keys back bucket by bucket.
// What they were checked against: every join-table name and every table with more than one
// order key in Wire's 80 stores, DuckDuckGo's and the fixtures (see `PropertyWalk`).

/// The dictionary of Core Foundation in Mac OS X 10.4 (CF-368, APSL): sized once, when it is
/// made, for the number of keys it will hold, to the prime count of buckets CF-368's table
/// gives; a key's home bucket is its 32-bit string hash modulo that count.
struct SizedPropertyDictionary {
    /// CF-368's capacities and, for each, its prime count of buckets.
    private static let capacities: [Int] = [4, 8, 17, 29, 47, 76, 123, 199, 322, 521, 843, 1364, 2207, 3571, 5778, 9349,
                                            15127, 24476, 39603, 64079, 103682, 167761, 271443, 439204, 710647, 1149851]
    private static let primes: [Int] = [5, 11, 23, 41, 67, 113, 199, 317, 521, 839, 1361, 2207, 3571, 5779, 9349, 15121,
                                        24473, 39607, 64081, 103681, 167759, 271429, 439199, 710641, 1149857, 1860503]

    private var buckets: [String?]

    init(capacity: Int) {
        let index = Self.capacities.firstIndex { $0 >= capacity } ?? Self.primes.count - 1
        buckets = Array(repeating: nil, count: Self.primes[index])
    }

    mutating func insert(_ key: String) {
        var i = Int(Self.hash(key) % UInt32(buckets.count))
        while let held = buckets[i] {
            if held == key { return }
            i = (i + 1) % buckets.count
        }
        buckets[i] = key
    }

    var keys: [String] { buckets.compactMap { $0 } }

    /// CF-368's string hash over UTF-16 code units: up to 23 units hashed whole, four at a time
    /// and then one at a time; a longer string by its first 8 and last 16 units; the length
    /// seeds it and shifts the result (by the length modulo 32, in 32-bit arithmetic).
    static func hash(_ key: String) -> UInt32 {
        let units = Array(key.utf16)
        var h = UInt32(truncatingIfNeeded: units.count)
        func four(_ u: ArraySlice<UInt16>) {
            let a = u[u.startIndex], b = u[u.startIndex + 1], c = u[u.startIndex + 2], d = u[u.startIndex + 3]
            h = h &* 67_503_105 &+ UInt32(a) &* 16_974_593 &+ UInt32(b) &* 66_049 &+ UInt32(c) &* 257 &+ UInt32(d)
        }
        let sampled = units.count > 23 ? Array(units[0..<8] + units[(units.count - 16)...]) : units
        let whole = sampled.count & ~3
        for i in stride(from: 0, to: whole, by: 4) { four(sampled[i..<(i + 4)]) }
        for unit in sampled[whole...] { h = h &* 257 &+ UInt32(unit) }
        return (h << (UInt32(truncatingIfNeeded: units.count) & 31)) &+ h
    }
}

/// The dictionary of Core Foundation from Mac OS X 10.5: a power-of-two count of buckets
/// that grows as keys arrive (to 4 buckets for 3 keys, 8 for 6, 16 for 12, and so on, the
/// keys re-filed in bucket order each time); a key's home bucket is Bob Jenkins' 32-bit mix
/// of its 64-bit string hash, masked to the bucket count.
struct GrowingPropertyDictionary {
    private var buckets: [String?] = []
    private var count = 0
    private var capacity = 3

    mutating func insert(_ key: String) {
        if buckets.isEmpty || count == capacity {
            let held = keys
            capacity = 3 << Self.bitWidth(count / 3)
            buckets = Array(repeating: nil, count: 4 << Self.bitWidth((capacity - 1) / 3))
            for k in held { buckets[slot(of: k)] = k }
        }
        let i = slot(of: key)
        if buckets[i] == nil {
            buckets[i] = key
            count += 1
        }
    }

    var keys: [String] { buckets.compactMap { $0 } }

    /// The bucket holding `key`, or the free one it would take.
    private func slot(of key: String) -> Int {
        var i = Int(Self.mix(UInt32(truncatingIfNeeded: Self.hash(key))) & UInt32(buckets.count - 1))
        while let held = buckets[i], held != key { i = (i + 1) % buckets.count }
        return i
    }

    /// The position of the highest set bit, 1-based (0 for 0).
    private static func bitWidth(_ n: Int) -> Int { Int.bitWidth - n.leadingZeroBitCount }

    /// Core Foundation's string hash (`CFDictionaryOrder.hash`) as Core Data's own copy has
    /// it: the result shifted by the length modulo 64, not 32 (the same for names under 32
    /// units; no store at hand tells the two apart for longer ones).
    static func hash(_ key: String) -> UInt64 { CFDictionaryOrder.hash(key, shiftMask: 63) }

    /// Bob Jenkins' 32-bit mix (lookup2) of `a` = the hash plus a seed, `b` = the seed,
    /// `c` = 1; its `c` is the result.
    static func mix(_ hash: UInt32) -> UInt32 {
        let seed: UInt32 = 0x4B61_6E65
        var a = hash &+ seed, b = seed, c: UInt32 = 1
        a = (a &- b &- c) ^ (c >> 13); b = (b &- c &- a) ^ (a << 8); c = (c &- a &- b) ^ (b >> 13)
        a = (a &- b &- c) ^ (c >> 12); b = (b &- c &- a) ^ (a << 16); c = (c &- a &- b) ^ (b >> 5)
        a = (a &- b &- c) ^ (c >> 3); b = (b &- c &- a) ^ (a << 10); c = (c &- a &- b) ^ (b >> 15)
        return c
    }
}

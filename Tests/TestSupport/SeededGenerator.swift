/// A random number generator with a seed (SplitMix64), shared by every test target: a test
/// that draws inputs at random draws the same ones on every run and every machine, and
/// names its seed when it fails, so a failure reproduces.
public struct SeededGenerator: RandomNumberGenerator, CustomStringConvertible {
    public let seed: UInt64
    private var state: UInt64

    /// `CDINSPECT_SEED` overrides `seed`, to explore other inputs by hand.
    public init(seed: UInt64) {
        let override = getenv("CDINSPECT_SEED").flatMap { UInt64(String(cString: $0), radix: 16) }
        self.seed = override ?? seed
        state = self.seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `seed 5eed0001 (CDINSPECT_SEED=5eed0001 reproduces it)`, for failure messages.
    public var description: String {
        let hex = String(seed, radix: 16)
        return "seed \(hex) (CDINSPECT_SEED=\(hex) reproduces it)"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

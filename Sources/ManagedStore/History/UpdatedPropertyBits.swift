/// `ACHANGE.ZCOLUMNS`: which properties an update changed, one bit per property.
///
/// The rule, worked out from the fixture stores (README, "Persistent history"): bits are
/// read most significant first (bit *i* is `0x80 >> (i % 8)` of byte `i / 8`); bit 0 names
/// nothing; bit *i* names the entity's *i*-th property (attributes, relationships and fetched
/// properties, inherited included) in the order of their names. A bitmap is then
/// `(count + 1 + 7) / 8` bytes long. One whose length is not that was written under a model
/// with another number of properties, so its bits cannot be named from this model; they,
/// bit 0, and bits past the list are shown as `#N`, never as a guessed name.
public struct UpdatedPropertyBits: Sendable {
    /// The entity's property names in bit order (bit 1 first).
    public let names: [String]

    public init(names: [String]) { self.names = names.sorted() }

    public init(entity: String, model: ManagedObjectModel) {
        self.init(names: model.allProperties(of: entity).map(\.property.name))
    }

    public var byteCount: Int { (names.count + 1 + 7) / 8 }

    /// The names of the set bits, in bit order.
    public func names(_ bitmap: [UInt8]) -> [String] {
        let named = bitmap.count == byteCount
        var result: [String] = []
        for (byteIndex, byte) in bitmap.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let index = byteIndex * 8 + bit
                if named, index >= 1, index <= names.count { result.append(names[index - 1]) } else { result.append("#\(index)") }
            }
        }
        return result
    }

    /// The bitmap Core Data would write for an update of `keys`.
    public func bitmap(_ keys: some Sequence<String>) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for key in keys {
            guard let position = names.firstIndex(of: key) else { continue }
            let index = position + 1
            bytes[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        return bytes
    }
}

/// `ACHANGE.ZCOLUMNS`: which properties an update changed, one bit per property.
///
/// The rule, measured on Core Data's own rows (the evidence table is in the README's design
/// notes, "Persistent history"): whenever Core Data inserts an object
/// whose to-one relationship has an inverse, the same transaction records an update of the
/// related object with the inverse's bit set, so each such group says which bit Core Data
/// gave that property. Bits are read most significant first (bit *i* is `0x80 >> (i % 8)`
/// of byte `i / 8`), bit 0 is the first property, and the properties are numbered in groups:
/// persistent to-one relationships, persistent attributes, persistent to-many relationships
/// (unordered, then ordered), then the transient attributes, to-ones and to-manys, and
/// fetched properties; inside each group by name, inherited and own together. A to-one
/// whose destination has sub-entities is stored as two columns (its key and `Z<n>_…`, the
/// destination's entity) and takes two bits, both set when it changes: Notes' ICCloudState
/// (five properties, its to-one into the ICCloudSyncingObject hierarchy) sets bits 2 and 5
/// in all 124 of its updates, `currentLocalVersion` and `localVersionDate` when the to-one
/// counts twice. A bitmap is `ceil(slots / 8)` bytes, transient properties counted.
///
/// The rule fits every case in Screen Time and most in Photos, but not all (Notes numbers
/// its to-many relationships in another order): so a bit is named only as the rule names
/// it, and one past the entity's properties, or in a bitmap shorter than this model's, is
/// shown as `#N`, never as a guessed name.
public struct UpdatedPropertyBits: Sendable {
    /// The entity's property names in bit order (bit 0 first); a to-one that takes two bits
    /// is there twice.
    public let names: [String]

    /// Names already in bit order.
    public init(orderedNames: [String]) { names = orderedNames }

    public init(entity: String, model: ManagedObjectModel) {
        let properties = model.allProperties(of: entity).map(\.property)
        let hierarchies = Set(model.entities.compactMap(\.superentityName))
        names = properties.sorted { a, b in
            let (ga, gb) = (Self.group(a), Self.group(b))
            return ga != gb ? ga < gb : a.name < b.name
        }.flatMap { property -> [String] in
            if case .relationship(let r) = property, Self.group(property) == 0, hierarchies.contains(r.destinationEntityName) {
                return [r.name, r.name]
            }
            return [property.name]
        }
    }

    /// Where a property's group stands in the numbering.
    static func group(_ property: PropertyDescription) -> Int {
        switch property {
        case .relationship(let r) where r.isTransient: return r.isToMany ? 6 : 5
        case .relationship(let r) where !r.isToMany: return 0
        case .relationship(let r): return r.isOrdered ? 3 : 2
        case .attribute(let a): return a.isTransient ? 4 : 1
        case .fetched: return 7
        }
    }

    public var byteCount: Int { (names.count + 7) / 8 }

    /// The names of the set bits, in bit order, each once.
    public func names(_ bitmap: [UInt8]) -> [String] {
        // A shorter bitmap was written under a model with fewer properties: its numbering
        // is not this model's.
        let named = bitmap.count >= byteCount
        var result: [String] = []
        for (byteIndex, byte) in bitmap.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let index = byteIndex * 8 + bit
                let name = named && index < names.count ? names[index] : "#\(index)"
                if result.last != name { result.append(name) }
            }
        }
        return result
    }

    /// The bitmap Core Data would write for an update of `keys`.
    public func bitmap(_ keys: some Sequence<String>) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        let wanted = Set(keys)
        for (index, name) in names.enumerated() where wanted.contains(name) {
            bytes[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        return bytes
    }
}

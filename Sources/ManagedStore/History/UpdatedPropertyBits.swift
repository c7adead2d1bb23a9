/// `ACHANGE.ZCOLUMNS`: which properties an update changed, one bit per member of Core
/// Data's SQL entity (`SQLEntity`, sql-entity.md §2).
///
/// Bits are read most significant first (bit *i* is `0x80 >> (i % 8)` of byte `i / 8`) and
/// a bitmap is `ceil(members / 8)` bytes. A to-one's foreign key, entity key and order key
/// each have a bit and all decode to the to-one; a hidden foreign key's bit decodes to no
/// property; a composite element's bit decodes to its composite. A bitmap shorter than the
/// model's was written under another numbering: each of its bits is shown as `#N`, as is a
/// bit past the members, never as a guessed name.
public struct UpdatedPropertyBits: Sendable {
    /// What each bit names, in bit order (bit 0 first): the property, nil where it names
    /// none (a hidden foreign key).
    public let names: [String?]
    /// What a key sets: the member's own name (`address.city` for a composite element,
    /// the to-one for its keys).
    private let keys: [String?]
    /// Which members are a to-one's entity key: a to-one re-pointed to another object of the
    /// same entity leaves that column as it was, and Core Data sets only its foreign key's bit.
    private let entityKeys: [Bool]

    /// Names already in bit order, each its own key.
    public init(orderedNames: [String?]) {
        names = orderedNames
        keys = orderedNames
        entityKeys = orderedNames.map { _ in false }
    }

    /// `learned`: the to-many order the store's history shows, where it has one.
    public init(entity: String, model: ManagedObjectModel, learned: LearnedToManyOrder = .none) {
        self.init(SQLEntity(entity: entity, model: model, toManyOrder: learned.orders[entity]))
    }

    public init(_ sqlEntity: SQLEntity) {
        names = sqlEntity.members.map(\.propertyName)
        keys = sqlEntity.members.map { member in
            if case .attribute(let name, _) = member { return name }
            return member.propertyName
        }
        entityKeys = sqlEntity.members.map { if case .entityKey = $0 { return true } else { return false } }
    }

    /// The key that names a to-one re-pointed to another object of the same entity: its
    /// foreign key's bit without its entity key's.
    public static func sameEntity(_ toOne: String) -> String { toOne + "#sameEntity" }

    public var byteCount: Int { (names.count + 7) / 8 }

    /// The names of the set bits, in bit order, each once.
    public func names(_ bitmap: [UInt8]) -> [String] {
        // A shorter bitmap was written under a model with fewer members: its numbering is
        // not this model's.
        let named = bitmap.count >= byteCount
        var result: [String] = []
        for (byteIndex, byte) in bitmap.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                let index = byteIndex * 8 + bit
                let name: String
                if named && index < names.count {
                    guard let known = names[index] else { continue }
                    name = known
                } else {
                    name = "#\(index)"
                }
                if !result.contains(name) { result.append(name) }
            }
        }
        return result
    }

    /// The bitmap Core Data writes for an update of `keys`: property names, or a composite's
    /// `composite.element` for that element alone.
    public func bitmap(_ keys: some Sequence<String>) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        let wanted = Set(keys)
        for index in names.indices {
            let own = self.keys[index], property = names[index]
            let named = own.map { wanted.contains($0) || (property.map(wanted.contains) ?? false) } ?? false
            let sameEntity = !entityKeys[index] && (own.map { wanted.contains(Self.sameEntity($0)) } ?? false)
            guard named || sameEntity else { continue }
            bytes[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        return bytes
    }
}

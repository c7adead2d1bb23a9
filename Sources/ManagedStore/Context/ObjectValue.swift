import Foundation

/// The value of one property of a managed object: an attribute, a to-one relationship (the
/// destination's ID), or a to-many relationship (destination IDs; in order when the
/// relationship is ordered).
public enum ObjectValue: Sendable, Equatable {
    case attribute(AttributeValue)
    case toOne(ObjectID?)
    case toMany([ObjectID])

    public static let null = ObjectValue.attribute(.null)

    var isNull: Bool {
        switch self {
        case .attribute(.null), .toOne(nil): return true
        default: return false
        }
    }

    /// The destination IDs of a relationship value, none for nil or an attribute.
    var destinations: [ObjectID] {
        switch self {
        case .toOne(let id?): return [id]
        case .toMany(let ids): return ids
        default: return []
        }
    }
}

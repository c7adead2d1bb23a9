/// An attribute as the model declares it (`NSAttributeDescription`, or a derived attribute).
public struct AttributeDescription: Sendable, Equatable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    public var isTransient: Bool
    public var isDerived: Bool = false
    public var valueClassName: String?
    public var valueTransformerName: String?
    public var allowsExternalBinaryDataStorage: Bool = false
    public var defaultValue: String?
    /// `preservesValueInHistoryOnDeletion`: persistent history keeps the value in the
    /// delete's tombstone, so a consumer can still tell which object went.
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// The name the attribute had in an earlier model version (nil when it is its own name).
    public var renamingIdentifier: String?
    /// A composite attribute's elements (macOS 14 / iOS 17): attributes, or composites again.
    public var elements: [AttributeDescription] = []
    /// The name of the composite definition the model file declares it with (Xcode's
    /// `<compositeAttribute name=…>`); the cache keeps only the elements.
    public var compositeName: String?
    /// Whether this is a leaf of a composite, as `leaves` makes them.
    public var isCompositeElement = false
    /// `isReadOnly`: part of the version hash (derived attributes are read-only).
    public var isReadOnly: Bool = false
    /// `versionHashModifier`: changes the property's version hash without a schema change.
    public var versionHashModifier: String?
    /// A derived attribute's derivation expression as `NSExpression` describes it
    /// (`count:(pages)`, `primaryLabel.code`): the whole of its version hash. nil when the
    /// model gives none, or gives one in a form this reader does not spell.
    public var derivation: String?
    /// What a value must satisfy before a save (`validationPredicates` with their warnings):
    /// the model editor's minimum, maximum and pattern, or rules set in code.
    public var validationRules: [ValidationRule] = []

    /// The attribute as the store lays it out: itself, or for a composite one leaf per
    /// element, named `composite.leaf` (`a.b.c` when nested), as fetches and predicates name
    /// them and Core Data flattens them into columns.
    public var leaves: [AttributeDescription] {
        guard type == .composite else { return [self] }
        return elements.flatMap { element in
            element.leaves.map { leaf in
                var leaf = leaf
                leaf.name = name + "." + leaf.name
                leaf.isCompositeElement = true
                leaf.isTransient = leaf.isTransient || isTransient
                leaf.renamingIdentifier = nil
                return leaf
            }
        }
    }

    /// Whether the column holds JSON text as SwiftData writes it: a codable attribute, or a
    /// composite's Binary element (SwiftData's arrays inside a Codable struct). A Binary
    /// element may also hold a `Data` property's own bytes: the value says which
    /// (`AttributeValueDecoder`), and only bytes that are JSON are read as JSON.
    public var holdsJSON: Bool { type == .codable || (isCompositeElement && type == .binaryData) }

    public init(name: String, type: AttributeType, isOptional: Bool = true, isTransient: Bool = false,
                isDerived: Bool = false, valueClassName: String? = nil, valueTransformerName: String? = nil,
                allowsExternalBinaryDataStorage: Bool = false, defaultValue: String? = nil,
                preservesValueInHistoryOnDeletion: Bool = false, renamingIdentifier: String? = nil) {
        self.renamingIdentifier = renamingIdentifier
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.isDerived = isDerived
        self.valueClassName = valueClassName
        self.valueTransformerName = valueTransformerName
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.defaultValue = defaultValue
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
    }
}

/// A relationship as the model declares it (`NSRelationshipDescription`).
public struct RelationshipDescription: Sendable, Equatable {
    public var name: String
    public var destinationEntityName: String
    public var inverseName: String?
    public var minCount: Int
    /// `1` means to-one; `0` (or a negative number, as some caches store) means unbounded.
    public var maxCount: Int
    public var deleteRule: DeleteRule
    public var isOrdered: Bool
    public var isOptional: Bool
    public var isTransient: Bool
    /// The name the relationship had in an earlier model version (nil when it is its own name).
    public var renamingIdentifier: String?
    /// `isReadOnly`: part of the version hash.
    public var isReadOnly: Bool = false
    /// `versionHashModifier`: changes the property's version hash without a schema change.
    public var versionHashModifier: String?

    public var isToMany: Bool { maxCount != 1 }

    public init(name: String, destinationEntityName: String, inverseName: String?, minCount: Int = 0,
                maxCount: Int = 1, deleteRule: DeleteRule = .nullify, isOrdered: Bool = false,
                isOptional: Bool = true, isTransient: Bool = false, renamingIdentifier: String? = nil) {
        self.renamingIdentifier = renamingIdentifier
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.minCount = minCount
        self.maxCount = maxCount
        self.deleteRule = deleteRule
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.isTransient = isTransient
    }
}

/// A fetched property: transient, never stored, shown so the schema is complete.
public struct FetchedPropertyDescription: Sendable, Equatable {
    public var name: String
    public var fetchEntityName: String?

    public init(name: String, fetchEntityName: String?) {
        self.name = name
        self.fetchEntityName = fetchEntityName
    }
}

public enum PropertyDescription: Sendable, Equatable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)
    case fetched(FetchedPropertyDescription)

    public var renamingIdentifier: String? {
        switch self {
        case .attribute(let a): return a.renamingIdentifier
        case .relationship(let r): return r.renamingIdentifier
        case .fetched: return nil
        }
    }

    public var name: String {
        switch self {
        case .attribute(let a): return a.name
        case .relationship(let r): return r.name
        case .fetched(let f): return f.name
        }
    }

    /// The property as the store lays it out: a composite attribute's leaves, else itself.
    public var flattened: [PropertyDescription] {
        if case .attribute(let a) = self, a.type == .composite { return a.leaves.map(PropertyDescription.attribute) }
        return [self]
    }

    /// Whether the property has storage in the entity's own table (a column, or a to-one key).
    public var isStoredInRow: Bool {
        switch self {
        case .attribute(let a): return !a.isTransient
        case .relationship(let r): return !r.isTransient && !r.isToMany
        case .fetched: return false
        }
    }
}

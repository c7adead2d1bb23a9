/// An entity as the model declares it. `properties` holds only what this entity declares;
/// `ManagedObjectModel.allProperties(of:)` adds what it inherits.
public struct EntityDescription: Sendable, Equatable {
    public var name: String
    public var className: String?
    public var isAbstract: Bool
    public var superentityName: String?
    public var properties: [PropertyDescription]
    /// The name the entity had before a migration renamed it (the model editor's "Renaming
    /// ID", `elementID` in the XML, `NSRenamingIdentifier` in the cache): a store migrated
    /// in place may still name its `Z_PRIMARYKEY` row after it.
    public var renamingIdentifier: String?
    /// Each constraint is a tuple of property names whose values must be unique together
    /// (`uniquenessConstraints`, `NSUniqueTuples` in the cache).
    public var uniquenessConstraints: [[String]] = []
    public var fetchIndexes: [FetchIndexDescription] = []
    /// Changes the entity's version hash without a schema change, forcing a migration.
    public var versionHashModifier: String?

    public init(name: String, className: String? = nil, isAbstract: Bool = false,
                superentityName: String? = nil, properties: [PropertyDescription] = [], renamingIdentifier: String? = nil,
                uniquenessConstraints: [[String]] = [], fetchIndexes: [FetchIndexDescription] = [], versionHashModifier: String? = nil) {
        self.renamingIdentifier = renamingIdentifier
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.versionHashModifier = versionHashModifier
        self.name = name
        self.className = className
        self.isAbstract = isAbstract
        self.superentityName = superentityName
        self.properties = properties
    }
}

extension EntityDescription {
    /// The declared properties with each composite attribute replaced by its leaves.
    public var flattenedProperties: [PropertyDescription] { properties.flatMap(\.flattened) }
}

/// A fetch index (`NSFetchIndexDescription`): the properties an index covers, in order.
public struct FetchIndexDescription: Sendable, Equatable {
    public struct Element: Sendable, Hashable {
        public var propertyName: String
        /// `NSFetchIndexElementType`: a B-tree ("Binary") or an R-tree.
        public var isRTree: Bool
        public var isAscending: Bool

        public init(propertyName: String, isRTree: Bool = false, isAscending: Bool = true) {
            self.propertyName = propertyName
            self.isRTree = isRTree
            self.isAscending = isAscending
        }
    }

    public var name: String
    public var elements: [Element]

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}

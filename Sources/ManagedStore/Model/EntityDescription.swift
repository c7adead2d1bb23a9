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

    public init(name: String, className: String? = nil, isAbstract: Bool = false,
                superentityName: String? = nil, properties: [PropertyDescription] = [], renamingIdentifier: String? = nil) {
        self.renamingIdentifier = renamingIdentifier
        self.name = name
        self.className = className
        self.isAbstract = isAbstract
        self.superentityName = superentityName
        self.properties = properties
    }
}

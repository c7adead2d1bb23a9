/// An entity as the model declares it. `properties` holds only what this entity declares;
/// `ManagedObjectModel.allProperties(of:)` adds what it inherits.
public struct EntityDescription: Sendable, Equatable {
    public var name: String
    public var className: String?
    public var isAbstract: Bool
    public var superentityName: String?
    public var properties: [PropertyDescription]

    public init(name: String, className: String? = nil, isAbstract: Bool = false,
                superentityName: String? = nil, properties: [PropertyDescription] = []) {
        self.name = name
        self.className = className
        self.isAbstract = isAbstract
        self.superentityName = superentityName
        self.properties = properties
    }
}

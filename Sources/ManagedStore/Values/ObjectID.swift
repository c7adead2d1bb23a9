/// A managed object's identity: entity and primary key in one store. It prints as Core
/// Data's URI, `x-coredata://STORE-UUID/Entity/pN`; `Entity/pN` is accepted as input.
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    public let storeUUID: String
    public let entityName: String
    public let primaryKey: Int64

    public init(storeUUID: String, entityName: String, primaryKey: Int64) {
        self.storeUUID = storeUUID
        self.entityName = entityName
        self.primaryKey = primaryKey
    }

    public var uri: String { ObjectID.uriPrefix(storeUUID: storeUUID, entityName: entityName) + String(primaryKey) }

    /// `x-coredata://UUID/Entity/p`, shared by every object of an entity.
    public static func uriPrefix(storeUUID: String, entityName: String) -> String {
        "x-coredata://\(storeUUID)/\(entityName)/p"
    }
    public var description: String { uri }

    /// Reads `x-coredata://UUID/Entity/pN` or `Entity/pN`; `nil` if the text is neither.
    public static func parse(_ text: String) -> (storeUUID: String?, entityName: String, primaryKey: Int64)? {
        var rest = Substring(text)
        var uuid: String?
        if rest.hasPrefix("x-coredata://") {
            rest = rest.dropFirst("x-coredata://".count)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            uuid = String(rest[..<slash])
            rest = rest[rest.index(after: slash)...]
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].hasPrefix("p"),
              let pk = Int64(parts[1].dropFirst()), pk > 0 else { return nil }
        return (uuid, String(parts[0]), pk)
    }
}

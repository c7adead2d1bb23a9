import Foundation

/// The row of `Z_METADATA`: the store UUID and the metadata dictionary Core Data keeps in a
/// binary plist (framework version, model version hashes, app-defined keys).
public struct StoreMetadata: Sendable {
    public let uuid: String
    public let plist: [(key: String, value: PropertyListValue)]

    public init(uuid: String, plistBytes: [UInt8]?) {
        self.uuid = uuid
        if let bytes = plistBytes, case .dictionary(let pairs)? = try? BinaryPropertyList.decode(bytes) {
            plist = pairs.compactMap { pair in pair.key.stringValue.map { ($0, pair.value) } }
        } else {
            plist = []
        }
    }

    public subscript(key: String) -> PropertyListValue? {
        plist.first { $0.key == key }?.value
    }

    public var storeType: String? { self["NSStoreType"]?.stringValue }
    public var frameworkVersion: Int64? { self["NSPersistenceFrameworkVersion"]?.integerValue }

    /// Entity names as Core Data wrote them, from the version hashes.
    public var hashedEntityNames: [String] {
        guard case .dictionary(let pairs)? = self["NSStoreModelVersionHashes"] else { return [] }
        return pairs.compactMap { $0.key.stringValue }.sorted()
    }
}

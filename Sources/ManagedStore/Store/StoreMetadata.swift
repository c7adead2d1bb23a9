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

    /// `NSStoreModelVersionHashes`: entity name → the 32 bytes Core Data wrote, which
    /// `EntityHashComparison` sets beside the model's.
    public var versionHashes: [String: [UInt8]] {
        guard case .dictionary(let pairs)? = self["NSStoreModelVersionHashes"] else { return [:] }
        var hashes: [String: [UInt8]] = [:]
        for pair in pairs {
            guard let name = pair.key.stringValue, case .data(let bytes) = pair.value else { continue }
            hashes[name] = bytes
        }
        return hashes
    }

    /// Entity names as Core Data wrote them, from the version hashes.
    public var hashedEntityNames: [String] {
        guard case .dictionary(let pairs)? = self["NSStoreModelVersionHashes"] else { return [] }
        return pairs.compactMap { $0.key.stringValue }.sorted()
    }
}

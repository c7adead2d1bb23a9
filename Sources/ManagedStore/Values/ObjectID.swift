import Foundation

/// A managed object's identity: entity and primary key in one store. It prints as Core
/// Data's URI, `x-coredata://STORE-UUID/Entity/pN`; `Entity/pN` is accepted as input.
///
/// An object inserted and not yet saved has a temporary ID, as in Core Data:
/// `x-coredata:///Entity/t<UUID><n>`, with no store UUID. It is kept here as a negative
/// primary key, so that IDs stay small values that hash cheaply.
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    public let storeUUID: String
    public let entityName: String
    public let primaryKey: Int64

    public init(storeUUID: String, entityName: String, primaryKey: Int64) {
        self.storeUUID = storeUUID
        self.entityName = entityName
        self.primaryKey = primaryKey
    }

    /// The `n`th temporary ID handed out in this process.
    public static func temporary(entityName: String, number: Int64) -> ObjectID {
        ObjectID(storeUUID: "", entityName: entityName, primaryKey: -number)
    }

    public var isTemporary: Bool { primaryKey < 0 }

    /// Temporary IDs carry a UUID that is the same for the whole process, as Core Data's
    /// carry one per coordinator: IDs from another run cannot be mistaken for these.
    public static let temporarySpace = UUID().uuidString

    public var uri: String {
        if isTemporary { return "x-coredata:///\(entityName)/t\(ObjectID.temporarySpace)\(-primaryKey)" }
        return ObjectID.uriPrefix(storeUUID: storeUUID, entityName: entityName) + String(primaryKey)
    }

    /// `x-coredata://UUID/Entity/p`, shared by every object of an entity.
    public static func uriPrefix(storeUUID: String, entityName: String) -> String {
        "x-coredata://\(storeUUID)/\(entityName)/p"
    }
    public var description: String { uri }

    /// Reads `x-coredata://UUID/Entity/pN` or `Entity/pN`, and the temporary forms
    /// `x-coredata:///Entity/t<UUID><n>` and `Entity/tN`; `nil` if the text is none of them.
    /// A temporary ID comes back with a negative key.
    public static func parse(_ text: String) -> (storeUUID: String?, entityName: String, primaryKey: Int64)? {
        // On the UTF-8 view: a page of a thousand objects parses each ID a few times, and
        // Character-by-Character splitting cost more than the page's queries.
        let bytes = text.utf8
        let slashByte = UInt8(ascii: "/")
        var start = bytes.startIndex
        var uuid: String?
        if bytes.starts(with: "x-coredata://".utf8) {
            start = bytes.index(start, offsetBy: 13)
            guard let slash = bytes[start...].firstIndex(of: slashByte) else { return nil }
            uuid = String(text[start..<slash])
            start = bytes.index(after: slash)
        }
        guard let slash = bytes[start...].firstIndex(of: slashByte), slash > start else { return nil }
        let kindIndex = bytes.index(after: slash)
        guard kindIndex < bytes.endIndex, !bytes[kindIndex...].contains(slashByte) else { return nil }
        let entity = String(text[start..<slash])
        var key = text[bytes.index(after: kindIndex)...]
        switch bytes[kindIndex] {
        case UInt8(ascii: "p"):
            guard let pk = Int64(key), pk > 0 else { return nil }
            return (uuid, entity, pk)
        case UInt8(ascii: "t"):
            if key.hasPrefix(ObjectID.temporarySpace) { key = key.dropFirst(ObjectID.temporarySpace.count) }
            guard let n = Int64(key), n > 0 else { return nil }
            return ("", entity, -n)
        default:
            return nil
        }
    }
}

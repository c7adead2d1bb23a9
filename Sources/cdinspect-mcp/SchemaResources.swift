import Foundation
import MCP
import ManagedStore

/// The model offered as resources, so a client can put it in an assistant's context without
/// a tool call: the whole schema, and one resource per entity.
struct SchemaResources: Sendable {
    static let prefix = "cdinspect://schema"
    let entities: [String]

    init(model: ManagedObjectModel) {
        entities = model.entities.map(\.name).sorted()
    }

    var list: [Resource] {
        [Resource(name: "schema", uri: Self.prefix, description: "Every entity's attributes, relationships and columns.", mimeType: "application/json")]
            + entities.map {
                Resource(name: $0, uri: Self.prefix + "/" + $0, description: "The entity \($0): attributes, relationships and columns.",
                         mimeType: "application/json")
            }
    }

    /// The entity a resource names, nil for the whole schema; an unknown resource is the
    /// specification's -32002.
    func entity(of uri: String) throws -> String? {
        if uri == Self.prefix { return nil }
        if uri.hasPrefix(Self.prefix + "/"), entities.contains(String(uri.dropFirst(Self.prefix.count + 1))) {
            return String(uri.dropFirst(Self.prefix.count + 1))
        }
        throw MCPError.serverError(code: -32002, message: "Resource not found: \(uri)")
    }
}

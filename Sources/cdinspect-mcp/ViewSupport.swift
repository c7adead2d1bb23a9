import Foundation
import Inspector
import MCP
import WebView

/// MCP Apps (the `io.modelcontextprotocol/ui` extension, stable 2026-01-26): whether this
/// client shows views, decided by what it declared in `initialize`. The SDK's capability
/// types have no `extensions`, so the transport, which sees every line, reads the client's
/// declaration and adds the server's to the initialize result (`LineTransport`). A client
/// that declares nothing sees the server as before: no `_meta.ui` on its tools, no view in a
/// result.
final class ViewSupport: @unchecked Sendable {
    static let shared = ViewSupport()
    static let extensionName = "io.modelcontextprotocol/ui"

    private let lock = NSLock()
    // Read and written only while holding `lock`.
    private var enabled = false
    private var initializeID: String?

    var clientShowsViews: Bool { lock.withLock { enabled } }

    /// An `initialize` request as read: the client shows views when its capabilities'
    /// extensions name the UI extension with the MCP App MIME type.
    func read(initialize message: [String: Any]) {
        let params = message["params"] as? [String: Any]
        let capabilities = params?["capabilities"] as? [String: Any]
        let extensions = capabilities?["extensions"] as? [String: Any]
        let ui = extensions?[Self.extensionName] as? [String: Any]
        let types = ui?["mimeTypes"] as? [String] ?? []
        lock.withLock {
            enabled = types.contains(AppView.mimeType)
            initializeID = message["id"].map { "\($0)" }
        }
    }

    /// The server's answer to `initialize`, with the extension added to its capabilities when
    /// the client declared it; any other message as it is.
    func patched(_ data: Data) -> Data {
        guard let (enabled, id) = lock.withLock({ initializeID.map { (self.enabled, $0) } }), enabled,
              var message = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              message["method"] == nil, let answered = message["id"], "\(answered)" == id,
              var result = message["result"] as? [String: Any] else { return data }
        var capabilities = result["capabilities"] as? [String: Any] ?? [:]
        var extensions = capabilities["extensions"] as? [String: Any] ?? [:]
        extensions[Self.extensionName] = ["mimeTypes": [AppView.mimeType]]
        capabilities["extensions"] = extensions
        result["capabilities"] = capabilities
        message["result"] = result
        lock.withLock { initializeID = nil }
        return (try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes])) ?? data
    }

    /// A tool's `_meta`: the view its answers are drawn with, for a client that shows views;
    /// under the extension's nested key and its older flat one, which some hosts still read alone.
    func toolMeta(_ view: ToolView?) -> Metadata? {
        guard let view, clientShowsViews else { return nil }
        let uri = Value.string(AppView.uri(view))
        return Metadata(additionalFields: ["ui": .object(["resourceUri": uri]), "ui/resourceUri": uri])
    }

    /// The views as resources, listed with the schema's to a client that shows views (to
    /// another they are views it would never show).
    var offeredResources: [Resource] { clientShowsViews ? Self.resources : [] }

    /// The views as resources, read as HTML documents.
    static var resources: [Resource] {
        ToolView.allCases.map {
            Resource(name: AppView.title($0), uri: AppView.uri($0), description: AppView.summary($0), mimeType: AppView.mimeType)
        }
    }

    /// The document of the view `uri` names, with the CSP metadata the extension defines: no
    /// domain of any kind, since a view loads nothing and reaches the store only through the
    /// host's tool calls.
    static func read(_ uri: String) -> ReadResource.Result? {
        guard let view = AppView.view(uri: uri) else { return nil }
        let meta = Metadata(additionalFields: ["ui": .object([
            "csp": .object(["connectDomains": .array([]), "resourceDomains": .array([]), "frameDomains": .array([]), "baseUriDomains": .array([])]),
            "prefersBorder": .bool(true),
        ])])
        return .init(contents: [.text(AppView.document(view), uri: uri, mimeType: AppView.mimeType, _meta: meta)])
    }
}

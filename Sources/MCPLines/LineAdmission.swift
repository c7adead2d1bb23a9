import Foundation

/// What the server's transport does with one line from the client, decided before the MCP
/// SDK sees it: the SDK answers only what its types decode, so whatever a hostile or broken
/// client sends that the specification still requires an answer to is answered here.
public enum LineAdmission {
    /// The line goes to the server. `id` is a request's id (to wait for its answer at the end
    /// of input), `initialize` an initialize request whole, `cancelled` the id a
    /// `notifications/cancelled` withdraws.
    case message(Data, id: RequestID?, initialize: [String: Any]?, cancelled: RequestID?)
    /// The line is answered here with a JSON-RPC error and goes no further (`id` nil: null).
    case error(id: RequestID?, code: Int, message: String)
    /// Nothing to do (a blank line).
    case blank

    /// A request id, a string or a number, as the ledger of open requests keys it.
    public struct RequestID: Hashable {
        public let key: String
        /// The id as the client wrote it, for JSON serialization to write back.
        public let value: Any

        public init?(_ id: Any) {
            if let s = id as? String {
                key = "s:" + s
            } else if id is NSNumber {
                key = "n:\(id)"
            } else {
                return nil
            }
            value = id
        }

        public static func == (a: RequestID, b: RequestID) -> Bool { a.key == b.key }
        public func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    /// What to do with `bytes`, one line without its newline.
    public static func admit(_ bytes: [UInt8]) -> LineAdmission {
        let data = Data(bytes)
        guard !bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) else { return .blank }
        guard let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return .error(id: nil, code: -32700, message: "Parse error: the message is not JSON")
        }
        guard let message = json as? [String: Any] else {
            if json is [Any] { return .message(data, id: nil, initialize: nil, cancelled: nil) }  // a batch: the server answers each member
            return .error(id: nil, code: -32600, message: "Invalid Request: a message is a JSON object")
        }
        guard let method = message["method"] as? String else { return .message(data, id: nil, initialize: nil, cancelled: nil) }  // a response
        let params = message["params"] as? [String: Any]
        if method == "notifications/cancelled" {
            // A cancelled request is not answered (the specification says so): stop waiting.
            return .message(data, id: nil, initialize: nil, cancelled: params?["requestId"].flatMap(RequestID.init))
        }
        var id: RequestID?
        if let raw = message["id"] {
            guard let valid = RequestID(raw) else {
                return .error(id: nil, code: -32600, message: "Invalid Request: a request's id is a string or a number")
            }
            id = valid
            if method == "tools/call", let arguments = params?["arguments"], !(arguments is [String: Any]) {
                return .error(id: valid, code: -32602, message: "Invalid params: 'arguments' is an object of argument names and values")
            }
        }
        return .message(data, id: id, initialize: method == "initialize" ? message : nil, cancelled: nil)
    }
}

/// The shape of a tool's structured answer, declared beside the tool (`ToolDeclaration.answer`)
/// and given to clients as its JSON Schema (`outputSchema`): what a host, or a view, can rely
/// on finding. An answer the command gives as a list is structured as `{"rows": […]}` and one
/// it gives as text (a model's XML, code) as `{"text": "…"}`; the text content stays what the
/// command line prints.
public indirect enum AnswerShape: Sendable {
    case string, integer, number, boolean
    /// Any JSON value.
    case any
    /// The value, or null.
    case nullable(AnswerShape)
    case array(AnswerShape)
    /// An object with these properties (the `required` ones always there); others may follow.
    case object([(String, AnswerShape)], required: [String])
    /// One of these shapes (a tool whose views answer differently).
    case oneOf([AnswerShape])

    /// A record whose listed properties are all there.
    public static func record(_ properties: [(String, AnswerShape)]) -> AnswerShape {
        .object(properties, required: properties.map(\.0))
    }

    /// A list answer, as it is structured: `{"rows": [ITEM…]}`.
    public static func rows(_ item: AnswerShape) -> AnswerShape { .record([("rows", .array(item))]) }

    /// A text answer, as it is structured: `{"text": "…"}`.
    public static let text = AnswerShape.record([("text", .string)])

    /// Any object: for an answer whose keys depend on the store (a CloudKit view's columns).
    public static let anyObject = AnswerShape.object([], required: [])

    /// The JSON Schema (draft 2020-12 keywords) for the shape.
    public var jsonSchema: OutputValue {
        switch self {
        case .string: return .object([("type", .string("string"))])
        case .integer: return .object([("type", .string("integer"))])
        case .number: return .object([("type", .string("number"))])
        case .boolean: return .object([("type", .string("boolean"))])
        case .any: return .object([])
        case .nullable(let shape):
            return .object([("anyOf", .array([shape.jsonSchema, .object([("type", .string("null"))])]))])
        case .array(let item): return .object([("type", .string("array")), ("items", item.jsonSchema)])
        case .object(let properties, let required):
            var schema: [(String, OutputValue)] = [("type", .string("object"))]
            if !properties.isEmpty { schema.append(("properties", .object(properties.map { ($0.0, $0.1.jsonSchema) }))) }
            if !required.isEmpty { schema.append(("required", .array(required.map(OutputValue.string)))) }
            return .object(schema)
        case .oneOf(let shapes):
            // An output schema's root must say its type (MCP: "type": "object").
            let objects = shapes.allSatisfy { if case .object = $0 { return true } else { return false } }
            return .object((objects ? [("type", .string("object"))] : []) + [("anyOf", .array(shapes.map(\.jsonSchema)))])
        }
    }

    /// How an answer the command gave becomes structured content: an object as it is, a
    /// list under `rows`, anything else (text) under `text`.
    public static func structured(_ answer: OutputValue) -> OutputValue {
        switch answer {
        case .object: return answer
        case .array: return .object([("rows", answer)])
        default: return .object([("text", .string(answer.text))])
        }
    }
}

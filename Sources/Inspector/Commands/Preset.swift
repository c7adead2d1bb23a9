/// A value a front end other than the command line sets on a command before running it (the
/// MCP server's typed arguments): it has no option of its own, so parsing a command line
/// leaves it unset, and it reaches the core as the type it is, never as text to parse again.
public struct Preset<Value: Sendable>: Decodable, Sendable {
    public var value: Value?

    public init() {}

    /// Argument parsing decodes every stored property; this one has nothing to read.
    public init(from decoder: Decoder) throws {}
}

import Foundation
import ManagedStore

/// How a command is offered to an assistant as an MCP tool, declared in the command's own
/// file (`CommandTraits.tool`): its title and description, its arguments with their JSON
/// types, where a paged answer keeps its rows, and how a call's arguments become the
/// command. The MCP server lists, checks and runs its tools from these alone, so a command
/// becomes a tool in one place.
public struct ToolDeclaration: Sendable {
    /// What a client shows a person for the tool.
    public let title: String
    public let description: String
    /// The answer holds what the store holds (text anyone may have written): the server
    /// says in the description that those values are data, not instructions.
    public let answersWithStoreContent: Bool
    public let arguments: [ToolArgument]
    /// The key of the rows in a paged answer; nil for a tool whose answer is one piece. A
    /// paged tool's command is a `PagedCommand`.
    public let rowsKey: String?
    /// The shape of the structured answer (of one row, for a paged tool), given to clients as
    /// the tool's output schema.
    public let answer: AnswerShape
    /// The view a host that shows MCP Apps renders the answer with (`ToolView`), if any.
    public let view: ToolView?
    /// The command a call's arguments make (paging aside).
    public let command: @Sendable (ToolArguments) throws -> any SessionCommand

    public init(title: String, description: String, answersWithStoreContent: Bool = false, arguments: [ToolArgument] = [],
                rowsKey: String? = nil, answer: AnswerShape, view: ToolView? = nil,
                command: @escaping @Sendable (ToolArguments) throws -> any SessionCommand) {
        self.title = title
        self.description = description
        self.answersWithStoreContent = answersWithStoreContent
        self.arguments = arguments
        self.rowsKey = rowsKey
        self.answer = answer
        self.view = view
        self.command = command
    }
}

/// The views a host that shows MCP Apps renders answers with: the web view's own renderers,
/// one for each kind of answer people look at.
public enum ToolView: String, Sendable, CaseIterable {
    /// Rows as a grid, with pages (fetch, sql).
    case grid
    /// The model's diagram and its entity cards.
    case model
    /// Doctor's space chart and findings.
    case doctor
    /// History's timeline and changes.
    case history
}

/// One argument of a tool: its name, its JSON type, what it means and whether a call must
/// give it.
public struct ToolArgument: Sendable {
    public enum Kind: String, Sendable {
        case string, integer, boolean
        /// Text with comma-separated items, or an array of strings.
        case list
        /// An array of JSON values: strings, numbers, booleans or null.
        case values
    }

    public let name: String
    public let kind: Kind
    public let description: String
    public let required: Bool

    public init(_ name: String, _ kind: Kind, _ description: String, required: Bool = false) {
        self.name = name
        self.kind = kind
        self.description = description
        self.required = required
    }

    public static func entity(_ description: String = "The entity.", required: Bool = true) -> ToolArgument {
        ToolArgument("entity", .string, description, required: required)
    }

    public static let predicate = ToolArgument("predicate", .string, "An NSPredicate format string, e.g. age > 30 AND name BEGINSWITH[c] \"d\", or a Swift predicate: #Predicate<Person> { $0.age > 30 } or { $0.age > 30 }.")
    public static let predicateArguments = ToolArgument(
        "arguments", .values, "Values for the predicate's %@, %K, %d and %f, in order: a string is text for %@ and a key path for %K.")
    /// The command line's names for the predicate and its values (`--where`, `--arg`), taken
    /// as `predicate` and `arguments` are, so that an assistant told either way is answered.
    public static let commandLineNames = [
        ToolArgument("where", .string, "The same as predicate (the command line's --where)."),
        ToolArgument("arg", .values, "The same as arguments (the command line's --arg)."),
    ]
    public static let limit = ToolArgument(
        "limit", .integer,
        "At most this many rows in all (default 100; 0: no limit). A page holds at most 1000 rows and a 4 MiB reply; nextCursor continues.")
    public static let cursor = ToolArgument("cursor", .string, "The nextCursor of the previous page, to continue it.")
}

/// A command whose tool answers in pages: the server sets the page's offset and row count.
public protocol PagedCommand: SessionCommand {
    mutating func page(offset: Int, limit: Int)
}

/// A tool call's arguments, already checked against the tool's declared types, as its
/// command reads them. JSON values are held as `OutputValue`s (the scalars, arrays and
/// objects JSON has). What the call gave but cannot use is kept as a warning.
public final class ToolArguments {
    public let tool: String
    public let values: [String: OutputValue]
    /// The longest a statement may run, in seconds: the server's limit for each call.
    public let timeLimit: Double
    public private(set) var warnings: [String] = []

    public init(tool: String, values: [String: OutputValue], timeLimit: Double) {
        self.tool = tool
        self.values = values
        self.timeLimit = timeLimit
    }

    public func text(_ key: String) -> String? {
        if case .string(let s)? = values[key] { return s }
        return nil
    }

    public func flag(_ key: String) -> Bool {
        if case .bool(let b)? = values[key] { return b }
        return false
    }

    /// A list given as a JSON array or as comma-separated text.
    public func items(_ key: String) -> [String] {
        let items: [String]
        switch values[key] {
        case .array(let list)?: items = list.compactMap { if case .string(let s) = $0 { return s } else { return nil } }
        case .string(let s)?: items = s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        default: items = []
        }
        return items.filter { !$0.isEmpty }
    }

    /// The predicate and its typed arguments, handed to the parser as the values they are:
    /// text, numbers, booleans and null (a string fills %K as a key path).
    public func predicate() throws -> PredicateOptions {
        var options = try PredicateOptions.parse([])
        options.where = text("predicate") ?? text("where")
        guard case .array(let given)? = values["arguments"] ?? values["arg"] else { return options }
        guard let format = options.where else { throw CommandError.usage("\(tool): 'arguments' fill the predicate's %@; give 'predicate'") }
        let specifiers = PredicateParser.specifierCount(format)
        if given.count > specifiers {
            let extra = given.count - specifiers
            warn("\(extra) of 'arguments' \(extra == 1 ? "is" : "are") not used: the predicate has \(specifiers) format specifier\(specifiers == 1 ? "" : "s") outside quotes")
        }
        options.typedArguments.value = given.map { value in
            switch value {
            case .string(let s): return .value(.string(s))
            case .integer(let i): return .value(.integer(i))
            case .real(let d): return .value(.double(d))
            case .bool(let b): return .value(.bool(b))
            default: return .value(.null)
            }
        }
        return options
    }

    public func warn(_ text: String) {
        warnings.append(text)
    }
}

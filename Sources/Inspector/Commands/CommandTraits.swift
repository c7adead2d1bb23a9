/// What a command is beyond its arguments, declared once beside them (`static let traits`)
/// and read by everything that lists or treats commands: the overview and the one-shot
/// subcommands (its group), the interpreter (whether `where` takes the rest of the line),
/// completion (whether its first argument is an entity) and the MCP server (its tool).
/// Adding a command is its file and one line in `CommandTable`; nothing else names it.
public struct CommandTraits: Sendable {
    /// The overview's group it is listed in, which also makes it a one-shot subcommand
    /// (`cdinspect COMMAND STORE …`); nil for a command of the session only.
    public var group: OverviewGroup?
    /// `COMMAND ENTITY where P…` takes the rest of the line as the predicate.
    public var takesWhereClause = false
    /// Its first argument is an entity name, and key paths follow it.
    public var firstArgumentIsEntity = false
    /// Its `--model` names another model of its own (doctor's next version), so its one-shot
    /// form does not read the store with it.
    public var ownsModelOption = false
    /// The MCP tool it is offered as, if an assistant should reach it (read-only commands).
    public var tool: ToolDeclaration?
    /// The words its first argument takes to name what it shows or does (`model export`,
    /// `cloudkit zones`): after the store in a one-shot command, so a command line that puts
    /// one before the store gets the order said back to it.
    public var views: [String] = []
    /// It never writes to the store and never follows it (`watch`, `cloudkit events
    /// --follow` must see later saves), whatever its arguments: its one-shot form reads a
    /// store no process has open (no `-shm` beside it) in place, creating no file beside it.
    public var onlyReads = false

    public init(group: OverviewGroup? = nil, takesWhereClause: Bool = false, firstArgumentIsEntity: Bool = false,
                ownsModelOption: Bool = false, tool: ToolDeclaration? = nil, views: [String] = [], onlyReads: Bool = false) {
        self.group = group
        self.takesWhereClause = takesWhereClause
        self.firstArgumentIsEntity = firstArgumentIsEntity
        self.ownsModelOption = ownsModelOption
        self.tool = tool
        self.views = views
        self.onlyReads = onlyReads
    }
}

/// The overview's groups, in the order it lists them.
public enum OverviewGroup: String, CaseIterable, Sendable {
    case read = "Read"
    case change = "Change"
    case historyAndSync = "History and sync"
    case health = "Health"
    case beforeAndAfter = "Before and after"
    case model = "Model"
    case find = "Find"
    case serve = "Serve"
}

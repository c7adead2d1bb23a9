import ArgumentParser
import ManagedStore

public struct SQLCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run read-only SQL against the store's tables, printed in the session's format.",
        discussion: """
            The sqlite3 habit, model-free: exactly one statement, on a connection of its own that SQLite keeps \
            from writing (read-only, query_only, defensive, an authorizer): anything but reading is refused \
            before it runs (writes, transactions, ATTACH, pragmas that set something, functions outside the \
            usual ones), and so is text after the statement. A statement stops after --timeout seconds (default \
            5) or when it needs more than 512 MB, and no string or blob may pass 64 MB. In a session, \
            'sql SELECT …' takes the rest of the line as the query (quote it to give options first). ? parameters \
            take their values from --bind, in order, or from 'bind[i] = VALUE' lines after the SQL: the output of \
            'explain' can be pasted in whole.
            """)

    @Argument(help: "The SQL statement.")
    public var query: [String] = []
    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A value for the next ? parameter: NULL, a number or quoted text; repeatable.", valueName: "value"))
    public var bind: [String] = []
    @Option(name: .long, parsing: .unconditional, help: "Print at most N rows.", transform: ObjectCount.parse)
    public var limit: Int?
    @Option(name: .long, parsing: .unconditional, help: "Pass over the first N rows.", transform: ObjectCount.parse)
    public var offset: Int?
    @Option(name: .long, help: ArgumentHelp("Stop the statement after this many seconds (default 5; 0: no limit).", valueName: "seconds"),
            transform: Seconds.parse)
    public var timeout: Double?
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let (sql, pasted) = ReadOnlyQuery.split(pasted: query.joined(separator: " "))
        let bindings = (bind + pasted).map(ReadOnlyQuery.binding)
        var writer: RowWriter?
        var printed = 0
        var skipped = 0
        let offset = self.offset ?? 0
        var limits = QueryLimits()
        if let timeout { limits.seconds = timeout }
        try ReadOnlyQuery.run(sql, bindings: bindings, store: session.store, limits: limits, columns: { names in
            writer = session.results(output).rows(names)
        }, row: { values in
            if skipped < offset {
                skipped += 1
                return true
            }
            if let limit, limit > 0, printed >= limit { return false }
            writer?.row(values.map { OutputValue($0) })
            printed += 1
            return writer?.wantsMore ?? true
        })
        writer?.finish()
    }
}

extension SQLCommand: PagedCommand {
    static let tool = ToolDeclaration(
        title: "Read-only SQL", description: "Read-only SQL against the store's tables: one statement; a statement that would write is refused.",
        answersWithStoreContent: true,
        arguments: [ToolArgument("query", .string, "One SQL statement.", required: true),
                    ToolArgument("arguments", .values, "Values for the statement's ? parameters, in order."),
                    .limit, .cursor],
        rowsKey: "rows",
        answer: .anyObject,
        view: .grid
    ) { a in
        var command = try SQLCommand.parse([])
        command.query = [a.text("query") ?? ""]
        if case .array(let values)? = a.values["arguments"] { command.bind = values.map(binding) }
        command.timeout = a.timeLimit
        return command
    }

    /// A JSON value as `--bind` takes it for SQL's ?: text between quotes (only the outer
    /// pair is taken off, so nothing inside needs escaping), numbers as they are, a boolean
    /// as 1 or 0 (SQLite has no other), null as NULL.
    static func binding(_ value: OutputValue) -> String {
        switch value {
        case .string(let s): return "\"" + s + "\""
        case .integer, .real: return value.text
        case .bool(let b): return b ? "1" : "0"
        default: return "NULL"
        }
    }

    public mutating func page(offset: Int, limit: Int) {
        (self.offset, self.limit) = (offset, limit)
    }
}

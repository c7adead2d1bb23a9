import ArgumentParser
import ManagedStore

public struct SQLCommand: SessionCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run read-only SQL against the store's tables, printed in the session's format.",
        discussion: """
            The sqlite3 habit, model-free: one statement, on the store's read-only connection; a statement that \
            would write is refused before it runs. In a session, 'sql SELECT …' takes the rest of the line as the \
            query (quote it to give options first). ? parameters take their values from --bind, in order, or \
            from 'bind[i] = VALUE' lines after the SQL: the output of 'explain' can be pasted in whole.
            """)

    @Argument(help: "The SQL statement.")
    public var query: [String] = []
    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A value for the next ? parameter: NULL, a number or quoted text; repeatable.", valueName: "value"))
    public var bind: [String] = []
    @Option(name: .long, parsing: .unconditional, help: "Print at most N rows.", transform: ObjectCount.parse)
    public var limit: Int?
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        let (sql, pasted) = ReadOnlyQuery.split(pasted: query.joined(separator: " "))
        let bindings = (bind + pasted).map(ReadOnlyQuery.binding)
        var writer: RowWriter?
        var printed = 0
        try ReadOnlyQuery.run(sql, bindings: bindings, store: session.store, columns: { names in
            writer = RowWriter(columns: names, format: session.format(output.format), sink: session.output)
        }, row: { values in
            if let limit, limit > 0, printed >= limit { return false }
            writer?.row(values.map { OutputValue($0) })
            printed += 1
            return true
        })
        writer?.finish()
    }
}

import ArgumentParser
import ManagedStore

public struct ExplainCommand: SessionCommand {
    public static let traits = CommandTraits(group: .read, takesWhereClause: true, firstArgumentIsEntity: true, tool: tool, onlyReads: true)

    public static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Print the SQL a fetch would run, and its bound values, without running it.",
        discussion: """
            Takes the options of fetch. The SQL is what cdinspect runs, written as Core Data's SQLite store writes it; the cdi_* \
            functions stand in for the ones Core Data registers (NSCoreDataLike, NSCoreDataStringSearch, …). \
            --as swift|fetch-descriptor|nspredicate|fetch-request prints the fetch as code to paste instead, from either \
            predicate syntax: a #Predicate, a SwiftData FetchDescriptor with its sort, limit and offset, an NSPredicate, or an \
            NSFetchRequest set-up. A predicate with no #Predicate form (LIKE, MATCHES, aggregates such as @avg, …) is refused.
            """)

    @Argument(help: "The entity to fetch.", completion: EntityCompletion.kind)
    public var entity: String

    @OptionGroup public var predicate: PredicateOptions
    @OptionGroup public var shape: FetchShapeOptions
    @Flag(name: .long, help: "Under the SQL, SQLite's query plan in the model's terms (SCAN Person, SEARCH Person USING INDEX …), each table's rows, a verdict, and for a fetch that reads a whole table or sorts, the index that spares it: as SwiftData's #Index, the model editor's fetch index and Core Data's CREATE INDEX.")
    public var plan = false
    @Flag(name: .customLong("try"), help: "With --plan: run the fetch before and after the advised index on a temporary copy of the store, and print both times. The store itself is never touched.")
    public var tryIndex = false
    @OptionGroup public var output: FormatOption

    public init() {}

    public func run(in session: Session) throws {
        if let form = shape.resultType.flatMap(FetchCode.Form.init(rawValue:)) {
            var shape = self.shape
            shape.resultType = nil
            let request = try shape.request(entity: entity, predicate: predicate, store: session.store, warn: session.warn)
            let code = try FetchCode.write(request, as: form, model: session.store.model)
            let lines = { code.split(separator: "\n", omittingEmptySubsequences: false).map { ReportPart.line(String($0)) } }
            session.results(output).report(Report(value: { .object([("as", .string(form.rawValue)), ("code", .string(code))]) },
                                                  people: lines, csv: lines))
            return
        }
        if let type = shape.resultType, FetchRequest.ResultType(rawValue: type) == nil {
            let forms = FetchRequest.ResultType.allCases.map(\.rawValue) + FetchCode.Form.allCases.map(\.rawValue)
            throw CommandError.usage("--as takes \(forms.joined(separator: ", ")), not '\(type)'")
        }
        if tryIndex && !plan { throw CommandError.usage("--try measures the advised index: give --plan too") }
        let fetchPlan = try FetchPlan(try shape.request(entity: entity, predicate: predicate, store: session.store, warn: session.warn).storeRequest, store: session.store)
        fetchPlan.warnings.forEach(session.warn)
        let values = fetchPlan.statement.storedArguments.map(OutputValue.init)
        let sql = fetchPlan.statement.sql
        // The statement and its bindings, as lines, in every format but JSON.
        let statementLines = [ReportPart.line(sql)] + values.enumerated().map { .line("  bind[\($0.offset)] = \($0.element.bindText)") }
        guard plan else {
            session.results(output).report(Report(value: { .object([("sql", .string(sql)), ("arguments", .array(values))]) },
                                                  people: { statementLines }, csv: { statementLines }))
            return
        }
        let explained = try PlanReport.make(fetchPlan, store: session.store, measure: tryIndex)
        session.results(output).report(Report(value: { .object([("sql", .string(sql)), ("arguments", .array(values))] + explained.value) },
                                              people: { statementLines + explained.lines }, csv: { statementLines + explained.lines }))
    }
}

extension ExplainCommand {
    static let tool = ToolDeclaration(
        title: "Explain a fetch's SQL",
        description: "The SQL a fetch runs, and its bound values; with 'plan', SQLite's query plan in the model's terms, each table's rows, "
            + "a verdict and, for a fetch that reads a whole table or sorts, the index that spares it (as #Index, a fetch index and CREATE INDEX); "
            + "with 'as', the fetch as Swift or Objective-C-style code to paste.",
        arguments: [.entity(), .predicate, .predicateArguments, ToolArgument("sort", .list, "Sort keys, comma-separated or an array."),
                    ToolArgument("plan", .boolean, "Add the query plan, the verdict and the index advice."),
                    ToolArgument("as", .string, "Instead of the SQL, the fetch as code to paste: swift (a #Predicate), fetch-descriptor, nspredicate or fetch-request.")],
        answer: .oneOf([.object([("sql", .string), ("arguments", .array(.any)), ("plan", .object([("steps", .array(.anyObject)), ("verdict", .string)], required: ["steps", "verdict"])),
                                 ("advice", .nullable(.anyObject))], required: ["sql"]),
                        .record([("as", .string), ("code", .string)])])
    ) { a in
        var command = try ExplainCommand.parse(["-"])
        command.entity = a.text("entity") ?? ""
        command.predicate = try a.predicate()
        command.shape.sort = a.items("sort")
        command.plan = a.flag("plan")
        if let form = a.text("as") {
            guard FetchCode.Form(rawValue: form) != nil else {
                throw CommandError.usage("explain: 'as' takes \(FetchCode.Form.allCases.map(\.rawValue).joined(separator: ", ")), not '\(form)'")
            }
            command.shape.resultType = form
        }
        return command
    }
}

import Foundation
import Inspector
import ManagedStore

/// A command of the session language run for a page: the same command, parsed from the same
/// words, that a session or a one-shot subcommand runs, its answer taken as values (the rows
/// and the whole answer `--format json` prints), its warnings kept for the page. The web view
/// is one more consumer of the commands' results, as the MCP server is; it reads nothing past
/// them but a blob's first bytes (`BlobHead`).
struct CommandAnswer {
    var rows: [OutputValue] = []
    var answer: OutputValue?
    /// What the command printed as text (a model's XML, a diagram), when it prints text.
    var text = ""
    var warnings: [String] = []
    /// Whether rows past `rowLimit` were left out.
    var truncated = false

    /// The answer as the command line's JSON prints it.
    var json: OutputValue { answer ?? .array(rows) }

    /// Runs `words` (the command's name first) on `store`.
    static func run(_ words: [String], store: PersistentStore, rowLimit: Int? = nil) throws -> CommandAnswer {
        try run(command: try CommandTable.parse(words), store: store, rowLimit: rowLimit)
    }

    /// Runs a command made from its words and then given what words cannot say (a list of
    /// keys that may hold commas) on `store`.
    static func run(command: SessionCommand, store: PersistentStore, rowLimit: Int? = nil) throws -> CommandAnswer {
        let sink = OutputSink(collectingWithWidth: nil, byteLimit: 16 << 20)
        let collector = Collector(limit: rowLimit)
        sink.resultReceiver = collector
        var warnings: [String] = []
        let session = Session(store: store, format: .json, output: sink, warn: { warnings.append($0) }, note: { _ in }, runsOneCommand: true)
        do {
            try session.run(command)
        } catch is Finding {
            // doctor's findings, a diff's differences: the report is the answer (as for an assistant).
        }
        sink.flush()
        return CommandAnswer(rows: collector.rows, answer: collector.answer, text: String(decoding: sink.collected, as: UTF8.self),
                             warnings: warnings, truncated: collector.truncated)
    }

    private final class Collector: ResultReceiver {
        let limit: Int?
        var rows: [OutputValue] = []
        var answer: OutputValue?
        var truncated = false

        init(limit: Int?) { self.limit = limit }

        func receive(_ record: OutputValue) -> Bool {
            if let limit, rows.count >= limit {
                truncated = true
                return false
            }
            rows.append(record)
            return true
        }

        func receive(answer: OutputValue) { self.answer = answer }
    }
}

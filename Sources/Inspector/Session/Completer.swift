import Foundation
import ManagedStore

/// Tab completion for the REPL: what can come at the cursor, worked out from the words
/// before it and the open store's model. Readline only asks and shows; the knowledge is
/// here, so it can be tested without a terminal.
public struct Completer {
    public let session: Session

    public init(session: Session) {
        self.session = session
    }

    /// Session words that are not commands of the command table.
    public static let builtins = ["help", "quit", "exit", "format", "dates", "sqldebug", "timer", "read"]

    /// Commands whose first argument is an entity name.
    static let entityCommands = Set(CommandTable.commands.filter { $0.traits.firstArgumentIsEntity }.map { $0._commandName })

    /// Candidates for `word`, which starts at `wordStart` in `line` (the text before the
    /// cursor). A candidate ending in `.` is a relationship to go on through.
    public func candidates(line: String, wordStart: Int, word: String) -> [String] {
        let before = String(line.prefix(wordStart))
        let words = (try? CommandLineSplitter.words(before + "x")).map { Array($0.dropLast()) }
            ?? before.split(separator: " ").map(String.init)
        let all: [String]
        if words.isEmpty {
            all = CommandTable.commands.map { $0._commandName } + Completer.builtins
        } else {
            all = following(words, word: word)
        }
        return all.filter { $0.hasPrefix(word) }.sorted()
    }

    private func following(_ words: [String], word: String) -> [String] {
        let command = words[0]
        let previous = words.last!
        switch previous {
        case "--context", "--into", "--parent": return contextNames
        case "--merge-policy": return ["error", "store-trump", "object-trump", "overwrite", "rollback"]
        case "--format": return OutputFormat.allCases.map(\.rawValue)
        case "--as":
            let types = FetchRequest.ResultType.allCases.map(\.rawValue)
            return command == "explain" ? types + FetchCode.Form.allCases.map(\.rawValue) : types
        case "--result": return ["status", "count", "ids"]
        default: break
        }
        switch command {
        case "help": return words.count == 1 ? CommandTable.commands.map { $0._commandName } + Completer.builtins : []
        case "format": return OutputFormat.allCases.map(\.rawValue)
        case "sqldebug": return (0...4).map(String.init)
        case "timer": return ["on", "off"]
        case "dates": return ["UTC", "local", "stored", "plain"]
        case "context":
            if words.count == 1 { return ["new", "use", "list", "drop", "set"] }
            if words.count == 2, ["use", "drop", "set"].contains(words[1]) { return contextNames }
        case "cloudkit":
            if words.count == 1 && !word.hasPrefix("-") { return CloudKitCommand.views }
            if words.count == 2 && words[1] == "objects" && !word.hasPrefix("-") { return session.store.mapping.entities.map(\.name) }
        case "pin", "diff":
            return ["current"] + contextNames + session.contexts.coordinator.liveGenerations.map(\.token)
        default: break
        }
        if word.hasPrefix("-") { return options(of: command) }
        if Completer.entityCommands.contains(command) {
            if words.count == 1 { return session.store.mapping.entities.map(\.name) }
            if let entity = session.store.mapping.entity(named: words[1]) { return keyPaths(word, from: entity) }
        }
        return []
    }

    private var contextNames: [String] { session.contexts.contexts.map(\.name) }

    /// The options a command declares, read from its help (the one description of them).
    private func options(of command: String) -> [String] {
        guard let type = CommandTable.command(named: command) else { return [] }
        let help = type.helpMessage(columns: 1000)
        let pattern = try! NSRegularExpression(pattern: "--[a-z][a-z-]*")
        let found = pattern.matches(in: help, range: NSRange(help.startIndex..., in: help)).compactMap {
            Range($0.range, in: help).map { String(help[$0]) }
        }
        return Array(Set(found))
    }

    /// Key paths through relationships: `cars.na` completes among the attributes and
    /// relationships of the destination of `cars`.
    private func keyPaths(_ word: String, from entity: EntityMapping) -> [String] {
        var current = entity
        var parts = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast()
        for part in parts {
            guard let relationship = current.relationship(part),
                  let next = session.store.mapping.entity(named: relationship.relationship.destinationEntityName) else { return [] }
            current = next
        }
        let prefix = parts.isEmpty ? "" : parts.joined(separator: ".") + "."
        return current.attributes.map { prefix + $0.attribute.name }
            + current.relationships.map { prefix + $0.relationship.name + "." }
    }
}

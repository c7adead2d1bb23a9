/// Puts the command line in the order the parser reads, so that the forms users write work:
/// Core Data's own spelling of the debug switch (pasted from an Xcode scheme) and the
/// options every form accepts written before a subcommand's name
/// (`cdinspect --sql-debug 1 count STORE Person`).
enum ArgumentOrder {
    /// Options of every form that take a value.
    static let valued: Set<String> = ["--sql-debug", "--model", "--format"]

    static func normalized(_ arguments: [String]) -> [String] {
        // A shell completion script asking for values (`---completion fetch -- …`) is the
        // parser's own protocol: left as it is.
        if arguments.first == "---completion" { return arguments }
        let words = arguments.map { $0 == "-com.apple.CoreData.SQLDebug" ? "--sql-debug" : $0 }
        var i = 0
        while i < words.count, words[i].hasPrefix("--"), words[i] != "--" {
            i += valued.contains(words[i]) ? 2 : 1
        }
        guard i > 0, i < words.count, OneShotCommands.names.contains(words[i]) else { return words }
        return [words[i]] + words[..<i] + words[(i + 1)...]
    }
}

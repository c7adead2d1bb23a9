import Inspector
import ManagedStore

/// Puts the command line in the order the parser reads, so that the forms users write work:
/// Core Data's own spelling of the debug switch (pasted from an Xcode scheme) and the
/// options every form accepts written before a subcommand's name
/// (`cdinspect --sql-debug 1 count STORE Person`).
enum ArgumentOrder {
    /// Options of every form that take a value.
    static let valued: Set<String> = ["--sql-debug", "--model", "--format", "--time-zone"]

    static func normalized(_ arguments: [String]) -> [String] {
        // A shell completion script asking for values (`---completion fetch -- …`) is the
        // parser's own protocol: left as it is.
        if arguments.first == "---completion" { return arguments }
        let words = FormatOption.joiningZoneOffsets(arguments.map { $0 == "-com.apple.CoreData.SQLDebug" ? "--sql-debug" : $0 })
        var i = 0
        while i < words.count, words[i].hasPrefix("--"), words[i] != "--" {
            i += valued.contains(words[i]) ? 2 : 1
        }
        guard i > 0, i < words.count, OneShotCommands.names.contains(words[i]) else { return snapshotFirst(words) }
        return snapshotFirst([words[i]] + words[..<i] + words[(i + 1)...])
    }

    /// `restore SNAPSHOT STORE`, the order `diff` takes them in, read as `restore STORE
    /// SNAPSHOT`: a snapshot is recognisable (a folder with its manifest), so both orders are
    /// one command, and a snapshot's folder never becomes the store a restore writes into.
    static func snapshotFirst(_ words: [String]) -> [String] {
        guard words.first == "restore" else { return words }
        let positions = words.indices.dropFirst().filter { !words[$0].hasPrefix("-") }
        guard positions.count >= 2, positions[1] == positions[0] + 1 else { return words }
        let (first, second) = (words[positions[0]], words[positions[1]])
        guard SnapshotManifest.isSnapshotFolder(first), !SnapshotManifest.isSnapshotFolder(second) else { return words }
        var swapped = words
        swapped[positions[0]] = second
        swapped[positions[1]] = first
        return swapped
    }
}

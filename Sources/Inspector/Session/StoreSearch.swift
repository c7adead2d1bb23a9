import Foundation
import ManagedStore

/// Where `stores` looks when given no folder, and how a STORE that is not a file is taken
/// for an app's bundle identifier or name (man cdinspect, `stores`).
public enum StoreSearch {
    /// `$CDINSPECT_SIMULATOR_ROOT`, else the simulator devices folder on macOS; nil on
    /// Linux without the variable, where there is no simulator.
    public static var defaultRoots: [String]? {
        if let root = ProcessEnvironment.value("CDINSPECT_SIMULATOR_ROOT"), !root.isEmpty { return [root] }
        #if os(macOS)
        return [NSHomeDirectory() + "/Library/Developer/CoreSimulator/Devices"]
        #else
        return nil
        #endif
    }

    /// The store a word names: a file as it is, else the one store of the app it names.
    public static func resolve(_ word: String) throws -> String {
        // access(2), not FileManager, whose first use costs more than a small command.
        if access(word, F_OK) == 0 || word.contains("/") { return word }
        guard let roots = defaultRoots else { return word }
        var finder = StoreFinder()
        let matches = finder.find(in: roots).filter { $0.belongs(to: word) }
        switch matches.count {
        case 1: return matches[0].path
        case 0: throw StoreSearchError.noApp(word: word, roots: roots)
        default: throw StoreSearchError.ambiguous(word: word, matches: matches)
        }
    }
}

public enum StoreSearchError: Error, CustomStringConvertible {
    case noApp(word: String, roots: [String])
    case ambiguous(word: String, matches: [FoundStore])
    case noRoot

    public var description: String {
        switch self {
        case .noApp(let word, let roots):
            return "no file '\(word)', and no store of an app '\(word)' under \(roots.joined(separator: ", "))"
        case .ambiguous(let word, let matches):
            let list = matches.map { m in
                "\(m.path) (\([m.bundleID, m.deviceName, m.runtime].compactMap { $0 }.joined(separator: ", ")))"
            }
            return "'\(word)' names \(matches.count) stores: \(list.joined(separator: "; ")); give one's path"
        case .noRoot:
            return "give a folder to search: there is no simulator folder here (CDINSPECT_SIMULATOR_ROOT names one)"
        }
    }
}

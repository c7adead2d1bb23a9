import ArgumentParser
import Foundation
import ManagedStore

/// Shell completion of entity names (`cdinspect fetch Store.sqlite Per<Tab>`): the first
/// word of the command line that is a file is opened read-only, and its model's entities
/// that start with what is typed are offered. Cheap: opening reads the model cache once.
public enum EntityCompletion {
    public static let kind = CompletionKind.custom { words, _, prefix in names(words: words, prefix: prefix) }

    static func names(words: [String], prefix: String) -> [String] {
        for word in words where !word.hasPrefix("-") && FileManager.default.fileExists(atPath: word) {
            guard let store = try? PersistentStore(path: word, options: .init(readonly: true)) else { continue }
            return store.mapping.entities.map(\.name).filter { $0.hasPrefix(prefix) }.sorted()
        }
        return []
    }
}

import Foundation
import GRDB

/// Query generations of a context (seeds 000, 001, 004; ARCHITECTURE.md "Core Data decisions").
///
/// Only root contexts are pinned. A child reads through its parent (`readRow`,
/// `readDestinations`, `readStore`), so it sees the parent's generation plus the parent's
/// pending changes without a generation of its own, as Apple describes nested contexts.
extension Context {
    /// The token of the generation this context is pinned to; nil when unpinned, as
    /// `queryGenerationToken` is.
    public var queryGenerationToken: String? { generation?.token }

    /// The generation this context's reads see: its own, or for a child its root's.
    public var readingGeneration: Generation? { parent?.readingGeneration ?? generation }

    /// `setQueryGenerationFrom(_:)`: pins to the newest generation (lazily: the snapshot is
    /// taken at the next read), to a token's, or to another context's. Registered objects
    /// keep their values: `refresh` or a refreshing fetch brings them to the new generation.
    @discardableResult
    public func pin(to choice: GenerationChoice) throws -> PinOutcome {
        if let parent { throw ContextError.childCannotPin(context: name, parent: parent.name) }
        let target: Generation
        switch choice {
        case .current:
            let mode = try coordinator.journalMode()
            guard mode == "wal" else {
                generation = nil
                return .unsupported(journalMode: mode)
            }
            target = coordinator.makeGeneration()
        case .token(let token):
            target = try coordinator.generation(resolving: token)
        case .context(let other):
            guard let found = other.readingGeneration else { throw ContextError.contextNotPinned(other.name) }
            target = found
        }
        generation = target
        return .pinned(token: target.token)
    }

    /// `setQueryGenerationFrom(nil)`: back to reading the newest committed state. The
    /// generation expires if no other context refers to it.
    public func unpin() {
        generation = nil
    }

    /// Parses an object ID as `Coordinator.objectID(parsing:)`, at this context's generation.
    public func objectID(parsing text: String) throws -> ObjectID {
        try coordinator.objectID(parsing: text, in: self)
    }

    /// A pinned context moves to the newest generation when it resets or merges another
    /// context's save (seed 004: "Merging", "Resetting"); an unpinned one stays unpinned.
    func advanceGeneration() {
        guard generation != nil else { return }
        generation = coordinator.makeGeneration()
    }
}

extension PersistentStore {
    /// Reads at the newest committed state, with SQLite's errors translated as they are
    /// for every other read, so that a damaged page says the same whichever path met it.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try reader.unsafeReentrantRead(body)
        } catch let error as DatabaseError {
            throw StoreConnection.translate(error, file: file)
        }
    }
}

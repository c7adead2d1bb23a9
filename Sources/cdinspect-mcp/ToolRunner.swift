import Foundation
import Inspector
import MCP
import ManagedStore
import WebView

/// Runs tool calls side by side, each on a thread of its own with a store no other call
/// uses, inside a `CancellationScope`: a client's `notifications/cancelled` or the call's
/// time limit stops that call's statement (and nothing else), while pings and other calls
/// go on being answered.
final class ToolRunner: @unchecked Sendable {
    let pool: StorePool
    /// Seconds a call may run; 0 for no limit. `sql` gets it as its statement's limit.
    let timeLimit: Double

    init(store: PersistentStore, timeLimit: Double) {
        pool = StorePool(store)
        self.timeLimit = timeLimit
    }

    /// The call's result; a call the client cancelled throws `CancellationError`, so that
    /// the server sends no answer, as the specification asks.
    func call(_ name: String, _ arguments: [String: Value]) async throws -> CallTool.Result {
        let scope = CancellationScope()
        let result: CallTool.Result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: self.run(name, arguments, scope)) }
                // A predicate of 40,000 terms is parsed by recursive descent.
                thread.stackSize = 64 << 20
                thread.start()
            }
        } onCancel: {
            scope.cancel()
        }
        if scope.reason == .cancelled { throw CancellationError() }
        return result
    }

    /// For a client that shows views, the answer drawn by the tool's view (`AppView`), in the
    /// result's `_meta`: what the model reads (text, structured content) is unchanged, and the
    /// reply stays within its cap (a page too large to draw whole is drawn in part, and says so).
    private func view(of name: String, _ answer: ToolAnswer) -> Metadata? {
        guard ViewSupport.shared.clientShowsViews, let view = MCPTools.definition(name)?.declaration.view else { return nil }
        let used = answer.replyBytes + MCPTools.envelope
        let budget = min(AppView.fragmentLimit, MCPTools.byteCap - used)
        guard let html = AppView.fragment(view, tool: name, answer: answer.answer, budget: budget) else { return nil }
        return Metadata(additionalFields: [AppView.metaKey: .object(["html": .string(html)])])
    }

    /// `text` within `bytes` of UTF-8, cut at a character and marked where it was cut.
    static func shortened(_ text: String, to bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var kept = ""
        var size = 0
        for character in text {
            size += character.utf8.count
            if size > bytes - 64 { break }
            kept.append(character)
        }
        return kept + " … (\(text.utf8.count - kept.utf8.count) more bytes left out)"
    }

    private func run(_ name: String, _ arguments: [String: Value], _ scope: CancellationScope) -> CallTool.Result {
        let timer = DispatchWorkItem { [timeLimit] in scope.cancel(.timeLimit(seconds: timeLimit)) }
        if timeLimit > 0 {
            // sql's statement stops itself at the limit, with its own message; the timer is
            // for everything else a call does.
            DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit + (name == "sql" ? 1 : 0), execute: timer)
        }
        defer { timer.cancel() }
        return scope.run {
            do {
                guard let pooled = try pool.borrow(for: scope) else { throw StoreError.interrupted }
                defer { pool.giveBack(pooled) }
                var store = pooled
                // A past generation is opened for the call alone, read in place; a cursor
                // continues the generation of the call it came from.
                var generation = arguments["generation"]?.stringValue
                if generation == nil, let text = arguments["cursor"]?.stringValue, let cursor = try? PageCursor(text, tool: name, arguments: [:]) {
                    generation = cursor.arguments["generation"]?.stringValue
                }
                if let generation {
                    var options = pooled.options
                    options.generation = generation
                    store = try PersistentStore(path: pooled.path, options: options)
                }
                defer { if store !== pooled { store.close() } }
                scope.watch(store.reader)
                let answer = try ToolAnswer.make(name, arguments, store: store, timeLimit: timeLimit)
                var content: [Tool.Content] = [.text(text: answer.text, annotations: nil, _meta: nil)]
                // Warnings are a few lines: each is cut short, so none can take the reply past its cap.
                for warning in answer.warnings.prefix(16) {
                    content.append(.text(text: "warning: " + Self.shortened(warning, to: 2048), annotations: nil, _meta: nil))
                }
                return CallTool.Result(content: content, structuredContent: Optional(answer.structured), isError: false,
                             _meta: view(of: name, answer))
            } catch {
                var message = ExitStatus.message(for: error)
                if let predicate = error as? PredicateFormatError, predicate.missing == .argument {
                    message = predicate.hinted("give it in 'arguments'").description
                }
                if case .timeLimit(let seconds)? = scope.reason {
                    message = "the call stopped after \(String(format: "%g", seconds)) s: the server's time limit (cdinspect mcp --timeout)"
                }
                // An error may quote what it was given, which can be megabytes.
                return .init(content: [.text(text: Self.shortened(message, to: 64 << 10), annotations: nil, _meta: nil)], isError: true)
            }
        }
    }
}

import Foundation
import XCTest

/// Output of a running process, collected as it arrives, that a test can wait on.
/// Sendable because a reader thread appends while the test waits: all state is behind `lock`.
final class OutputBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""
    /// The start of a character whose other bytes have not arrived yet.
    private var unfinished: [UInt8] = []
    /// Where the next `expect` starts looking, so each waits for new output.
    private var mark: String.Index?

    /// An empty buffer, filled by `append`.
    init() {}

    func append(_ bytes: some Collection<UInt8>) {
        lock.withLock {
            let all = unfinished + bytes
            let end = OutputBuffer.completeCharactersEnd(all)
            buffer += String(decoding: all[..<end], as: UTF8.self)
            unfinished = Array(all[end...])
        }
    }

    /// Where the last complete UTF-8 character of `bytes` ends: a read can stop inside one.
    private static func completeCharactersEnd(_ bytes: [UInt8]) -> Int {
        guard let lead = bytes.indices.reversed().prefix(4).first(where: { bytes[$0] & 0xC0 != 0x80 }) else {
            return bytes.count
        }
        let length = bytes[lead] >= 0xF0 ? 4 : bytes[lead] >= 0xE0 ? 3 : bytes[lead] >= 0xC0 ? 2 : 1
        return bytes.count - lead < length ? lead : bytes.count
    }

    /// Everything seen so far.
    var text: String { lock.withLock { buffer } }

    /// Waits until `text` appears after the last match; fails the test with everything seen
    /// so far when it does not come within `timeout` seconds.
    @discardableResult
    func expect(_ text: String, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let found: Bool = lock.withLock {
                let start = mark ?? buffer.startIndex
                guard let range = buffer.range(of: text, range: start..<buffer.endIndex) else { return false }
                mark = range.upperBound
                return true
            }
            if found { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTFail("no \(text.debugDescription) within \(timeout) s; the output was:\n\(self.text.debugDescription)", file: file, line: line)
        return false
    }
}

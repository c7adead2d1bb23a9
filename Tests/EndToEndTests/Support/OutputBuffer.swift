import Foundation
import XCTest

/// Output of a running process, collected as it arrives, that a test can wait on.
final class OutputBuffer {
    private let lock = NSLock()
    private var buffer = ""
    /// Where the next `expect` starts looking, so each waits for new output.
    private var mark: String.Index?

    /// Collects everything `pipe` delivers from now on.
    init(_ pipe: Pipe) {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.buffer += String(decoding: data, as: UTF8.self) }
        }
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

extension Process {
    /// Waits for the process to end; nil if it is still running after `timeout` seconds.
    func exitStatus(timeout: TimeInterval = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return isRunning ? nil : terminationStatus
    }
}

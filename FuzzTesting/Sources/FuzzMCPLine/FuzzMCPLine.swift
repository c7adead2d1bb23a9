import FuzzSupport
import MCPLines

/// Bytes on the MCP server's standard input, as its transport reads them: cut into lines
/// (`LineSplitter`, fed in reads of the sizes the input's first byte chooses, with a small
/// line limit so that overlong lines are reached) and each line admitted to the server or
/// answered (`LineAdmission`). Every byte is accounted for: the lines handed over, with their
/// newlines, are the input up to its last newline, save the overlong ones.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzDriver.bytes(data, size)
    guard let first = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    let limit = 64 + Int(first) * 16
    let piece = 1 + Int(first & 15) * 7
    var splitter = LineSplitter(maximumLine: limit)
    var lines: [[UInt8]] = []
    var overlong = 0
    input.withUnsafeBufferPointer { all in
        var at = 0
        while at < all.count {
            let end = min(all.count, at + piece)
            splitter.feed(UnsafeBufferPointer(rebasing: all[at..<end])) { line in
                switch line {
                case .message(let message):
                    precondition(message.count <= limit, "a line past the limit was handed over")
                    lines.append(message)
                    _ = LineAdmission.admit(message)
                case .overlong:
                    overlong += 1
                }
            }
            at = end
        }
    }
    let expected = input.split(separator: 10, omittingEmptySubsequences: false).dropLast()
    precondition(lines.count + overlong == expected.count, "lines were lost or made up")
    if overlong == 0 { precondition(lines.elementsEqual(expected.map(Array.init)), "lines were changed") }
    return 0
}

/// The program's entry (SwiftPM links `main` to this symbol): libFuzzer's driver over
/// `testOneInput`.
@_cdecl("FuzzMCPLine_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.run(testOneInput)
}

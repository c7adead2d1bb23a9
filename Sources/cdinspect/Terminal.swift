import Foundation
import ManagedStore
import Inspector

enum Terminal {
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    static func standardOutput() -> OutputSink {
        var width: Int?
        if isatty(STDOUT_FILENO) == 1 {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { width = Int(size.ws_col) }
        }
        let sink = OutputSink(handle: FileHandle.standardOutput, terminalWidth: width)
        sink.usesColor = usesColor(STDOUT_FILENO)
        return sink
    }

    /// Colour only on a terminal that can show it, and never when `NO_COLOR` is set to
    /// anything but the empty string (no-color.org).
    static func usesColor(_ descriptor: Int32) -> Bool {
        if let noColor = ProcessEnvironment.value("NO_COLOR"), !noColor.isEmpty { return false }
        return isatty(descriptor) == 1 && ProcessEnvironment.value("TERM") != "dumb"
    }
}

import Foundation
import XCTest

/// The built `cdinspect` on a pseudo-terminal of its own, as a person at a terminal runs it.
/// The terminal is made here (`posix_openpt`) and becomes the process's controlling terminal
/// (a new session opening it), so a Ctrl-C typed here goes through the terminal's line
/// discipline and arrives as SIGINT, as from a keyboard; no `script` or other tool is needed.
final class PseudoTerminal {
    private let controller: Int32
    private let child: ChildProcess
    private var status: Int32?
    let screen = OutputBuffer()

    /// Runs `CLI.binary` with `arguments` on an 80×24 terminal.
    init(_ arguments: [String], environment: [String: String]) throws {
        let terminalPath: String
        (controller, terminalPath) = try PseudoTerminal.open()
        // An 80-column terminal, whatever runs the tests.
        var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(controller, PseudoTerminal.setWindowSize, &size)

        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm"
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        do {
            child = try ChildProcess([CLI.binary.path] + arguments, environment: env,
                                     files: [0: terminalPath, 1: terminalPath, 2: terminalPath], newSession: true)
        } catch {
            close(controller)
            throw error
        }
        // The reader owns the controller from here: it reads until the terminal's last other
        // end closes (the process ended) and then closes it.
        let controller = self.controller, screen = self.screen
        let reader = Thread {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(controller, &chunk, chunk.count)
                if count > 0 { screen.append(chunk[..<count]); continue }
                if count < 0 && errno == EINTR { continue }
                break
            }
            close(controller)
        }
        reader.start()
    }

    deinit {
        if status == nil {
            kill(child.pid, SIGKILL)
            _ = child.wait()
        }
    }

    #if canImport(Darwin)
    /// TIOCSWINSZ, whose definition (an _IOW macro) Swift does not import from Darwin.
    private static let setWindowSize: UInt = 0x8008_7467
    #else
    private static let setWindowSize = UInt(TIOCSWINSZ)
    #endif

    /// A new pseudo-terminal: the controlling side, open, and the path of the terminal side.
    private static func open() throws -> (Int32, String) {
        #if canImport(Darwin)
        let controller = posix_openpt(O_RDWR | O_NOCTTY)
        guard controller >= 0 else { throw ChildProcess.failure("posix_openpt") }
        guard grantpt(controller) == 0, unlockpt(controller) == 0, let name = ptsname(controller) else {
            close(controller)
            throw ChildProcess.failure("grantpt, unlockpt or ptsname")
        }
        let path = String(cString: name)
        #elseif canImport(Glibc)
        // What posix_openpt, unlockpt and ptsname do on Linux, which Swift's Glibc module does
        // not declare: the ioctls are TIOCSPTLCK and TIOCGPTN.
        let controller = Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard controller >= 0 else { throw ChildProcess.failure("open /dev/ptmx") }
        var locked: Int32 = 0, number: UInt32 = 0
        guard ioctl(controller, 0x4004_5431, &locked) == 0, ioctl(controller, 0x8004_5430, &number) == 0 else {
            close(controller)
            throw ChildProcess.failure("unlocking the pseudo-terminal")
        }
        let path = "/dev/pts/\(number)"
        #else
        throw ChildProcess.failure("pseudo-terminals on this system")
        #endif
        _ = fcntl(controller, F_SETFD, FD_CLOEXEC)
        return (controller, path)
    }

    /// Keys as typed: `\t` is Tab, `\u{03}` Ctrl-C, `\u{04}` Ctrl-D, `\r` Return.
    func type(_ keys: String) {
        let bytes = Array(keys.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }

    @discardableResult
    func expect(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        screen.expect(text, file: file, line: line)
    }

    var seen: String { screen.text }

    /// The exit status once the process ends (128 + N if signal N ended it); nil if it is
    /// still running after `timeout` seconds.
    func wait(timeout: TimeInterval = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while status == nil {
            if let ended = child.poll() {
                status = ended.status
            } else if Date() >= deadline {
                return nil
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        return status
    }

}

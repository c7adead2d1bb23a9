import Foundation
import ManagedStore

/// `--open`: the default browser, on a file holding a redirect to the login address, so the
/// token is never on a command line another user's `ps` can read (Jupyter's way). The file is
/// in a folder only its owner reads, and goes when the server stops.
enum BrowserLauncher {
    nonisolated(unsafe) static var folder: URL?

    static func open(_ url: String) {
        let fm = FileManager.default
        let made = fm.temporaryDirectory.appendingPathComponent("cdinspect-browse-\(getpid())")
        do {
            try fm.createDirectory(at: made, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            folder = made
            let file = made.appendingPathComponent("open.html")
            let page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0; url=\(url)\"></head>"
                + "<body><a href=\"\(url)\">Open the web view</a></body></html>\n"
            try Data(page.utf8).write(to: file, options: .withoutOverwriting)
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            #if os(macOS)
            let opener = "/usr/bin/open"
            #else
            let opener = "xdg-open"
            #endif
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [opener, file.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        } catch {
            FileHandle.standardError.writeIgnoringErrors(Data("cdinspect: warning: could not open a browser (\(error.localizedDescription)); open the address above\n".utf8))
        }
    }

    static func cleanUp() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }
}

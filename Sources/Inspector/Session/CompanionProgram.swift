import Foundation

/// The programs installed beside `cdinspect` that carry what it must not load at every start
/// (the MCP server's networking, the web view's HTTP stack): found in the folder of the
/// running executable (symbolic links resolved), else on PATH.
public enum CompanionProgram {
    public static func path(_ name: String) -> String? {
        let fm = FileManager.default
        if let me = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let beside = me.deletingLastPathComponent().appendingPathComponent(name).path
            if fm.isExecutableFile(atPath: beside) { return beside }
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = String(folder) + "/" + name
            if fm.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

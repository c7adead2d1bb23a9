import Foundation

/// A process that has a file open: its pid and its program's name.
public struct ProcessUse: Sendable, Equatable, CustomStringConvertible {
    public let pid: Int32
    public let program: String

    public var description: String { "process \(pid) (\(program))" }

    /// The other processes that have any of `paths` open (the store, its `-wal`, its
    /// `-shm`). On Linux, from each process's open files in `/proc`; on macOS, from
    /// `lsof`. Processes this user may not look into are not seen.
    public static func others(using paths: [String]) -> [ProcessUse] {
        let wanted = Set(paths.map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path })
        #if os(Linux)
        return fromProc(wanted)
        #else
        return fromLsof(wanted)
        #endif
    }

    static func fromProc(_ wanted: Set<String>) -> [ProcessUse] {
        let me = getpid()
        let fm = FileManager.default
        var found: [ProcessUse] = []
        for entry in (try? fm.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != me else { continue }
            let fds = "/proc/\(entry)/fd"
            guard let names = try? fm.contentsOfDirectory(atPath: fds) else { continue }
            let opens = names.contains { name in
                (try? fm.destinationOfSymbolicLink(atPath: fds + "/" + name)).map(wanted.contains) ?? false
            }
            guard opens else { continue }
            let comm = (try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            found.append(ProcessUse(pid: pid, program: comm ?? "unknown"))
        }
        return found.sorted { $0.pid < $1.pid }
    }

    /// `lsof -F pcn -- PATH…`: `p<pid>`, `c<command>` and `n<name>` lines.
    static func fromLsof(_ wanted: Set<String>) -> [ProcessUse] {
        let existing = wanted.filter { FileManager.default.fileExists(atPath: $0) }.sorted()
        guard !existing.isEmpty else { return [] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/lsof")
        process.arguments = ["-F", "pc", "--"] + existing
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let me = getpid()
        var found: [ProcessUse] = []
        var pid: Int32?
        for line in output.split(separator: "\n") {
            if line.hasPrefix("p") { pid = Int32(line.dropFirst()) }
            if line.hasPrefix("c"), let p = pid, p != me, !found.contains(where: { $0.pid == p }) {
                found.append(ProcessUse(pid: p, program: String(line.dropFirst())))
            }
        }
        return found.sorted { $0.pid < $1.pid }
    }
}

import Foundation

/// A child process started with `posix_spawn`, which is safe from any thread (Foundation's
/// `Process` faulted when tests started processes from several threads at once), and can do
/// what `Process` cannot: start in a new session (to own a terminal) and report the child's
/// resource use when it ends. Every test target starts its processes through it.
public struct ChildProcess {
    public let pid: pid_t

    /// Starts `arguments` with each of `files` opened as the given descriptor (read-write,
    /// created if missing) and the rest of standard input, output and error on /dev/null.
    /// In a `newSession`, the first terminal the child opens becomes its controlling one.
    /// `descriptors` are the test's own (a pipe's end), given to the child as the number
    /// they map to, in place of a file.
    public init(_ arguments: [String], environment: [String: String], files: [Int32: String], descriptors: [Int32: Int32] = [:],
         newSession: Bool = false) throws {
        var actions = ChildProcess.blankActions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            if let own = descriptors[descriptor] {
                posix_spawn_file_actions_adddup2(&actions, own, descriptor)
            } else {
                posix_spawn_file_actions_addopen(&actions, descriptor, files[descriptor] ?? "/dev/null", O_RDWR | O_CREAT, 0o600)
            }
        }
        // Then nothing else the test process holds reaches the child: a pipe Foundation's
        // `Pipe` made (not close-on-exec) would stay open in a long-lived child, and the
        // process at its other end would never see its input end.
        #if os(Linux)
        _ = ChildProcess.closeFrom?(&actions, 3)
        #endif

        var attributes = ChildProcess.blankAttributes()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Signals as a fresh process has them, whatever the test runner blocked or ignored.
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGPIPE, SIGTERM, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, (newSession ? ChildProcess.setSession : 0) | ChildProcess.closeOthers
                                    | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = ChildProcess.spawning.withLock { posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp) }
        guard result == 0 else { throw ChildProcess.failure("posix_spawn \(arguments[0])", code: result) }
        self.pid = pid
    }

    /// How a child ended: its exit status (128 + N if signal N ended it), the signal if
    /// one did, and its peak resident memory in bytes.
    public struct Ending {
        public let status: Int32
        public let signal: Int32
        public let peakMemory: Int
    }

    /// The exit status and peak memory once the child ends; nil without blocking if it is
    /// still running.
    public func poll() -> (status: Int32, peakMemory: Int)? { reap(options: WNOHANG).map { ($0.status, $0.peakMemory) } }

    /// As `poll`, waiting for the end.
    public func wait() -> (status: Int32, peakMemory: Int) {
        let ending = waitForEnding()
        return (ending.status, ending.peakMemory)
    }

    /// The ending without blocking; nil while the child runs.
    public func pollEnding() -> Ending? { reap(options: WNOHANG) }

    public func waitForEnding() -> Ending {
        while true {
            if let ended = reap(options: 0) { return ended }
        }
    }

    /// nil while the child runs (or a signal interrupted the wait); a child already reaped
    /// by an earlier call reports status -1 rather than leaving `wait` to spin.
    private func reap(options: Int32) -> Ending? {
        var raw: Int32 = 0
        var usage = rusage()
        let reaped = wait4(pid, &raw, options, &usage)
        if reaped == -1 && errno == ECHILD { return Ending(status: -1, signal: 0, peakMemory: 0) }
        guard reaped == pid else { return nil }
        let signal = raw & 0x7f
        #if canImport(Darwin)
        let peak = Int(usage.ru_maxrss)  // bytes
        #else
        let peak = Int(usage.ru_maxrss) * 1024  // kilobytes
        #endif
        return Ending(status: signal == 0 ? (raw >> 8) & 0xff : 128 + signal, signal: signal, peakMemory: peak)
    }

    /// A pipe whose two ends close on exec, so that a child another thread starts at the
    /// same moment cannot inherit them (and hold a reader's end of file off); the end a
    /// child is given through `descriptors` is dup'ed, which clears the flag on its copy.
    public static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        // Under the lock every spawn takes: no child starts between pipe(2) and the flag.
        try spawning.withLock {
            guard pipe(&ends) == 0 else { throw failure("pipe") }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        return (ends[0], ends[1])
    }

    /// Held while a child is started and while a pipe is made and flagged.
    private static let spawning = NSLock()

    public static func failure(_ what: String, code: Int32 = errno) -> Error {
        NSError(domain: "ChildProcess", code: Int(code),
                userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(code)))"])
    }

    #if os(Linux)
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's
    /// Glibc module does not declare: looked up by name, absent on an older glibc.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
    private static let closeOthers = Int16(0)
    #else
    /// POSIX_SPAWN_CLOEXEC_DEFAULT: only the descriptors the file actions name reach the child.
    private static let closeOthers = Int16(0x4000)
    #endif

    #if canImport(Darwin)
    private static let setSession = Int16(0x0400)  // POSIX_SPAWN_SETSID
    // Opaque pointers on Darwin, which `_init` allocates: they start as nil.
    private typealias SpawnActions = posix_spawn_file_actions_t?
    private typealias SpawnAttributes = posix_spawnattr_t?
    private static func blankActions() -> SpawnActions { nil }
    private static func blankAttributes() -> SpawnAttributes { nil }
    #else
    private static let setSession = Int16(0x80)  // POSIX_SPAWN_SETSID
    private typealias SpawnActions = posix_spawn_file_actions_t
    private typealias SpawnAttributes = posix_spawnattr_t
    private static func blankActions() -> SpawnActions { SpawnActions() }
    private static func blankAttributes() -> SpawnAttributes { SpawnAttributes() }
    #endif
}

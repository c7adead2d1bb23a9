import Foundation

/// Counts the commits of a `-wal` on the machine's cores, for a caller that takes the counts
/// in commit order.
///
/// Why: each commit is counted from its own pages, independent of the others, and a listing
/// of 300 commits spends most of its time there. The commits are cut into as many runs as
/// there are threads; the caller counts the first run itself as it asks (so the listing starts
/// at once), and each other thread counts its run ahead, into results the caller takes and
/// drops as it reaches them. Every thread has its own `GenerationPages`, and shares only the
/// descriptors, which `pread` reads without moving.
final class CommitCountWorkers: @unchecked Sendable {
    struct Job: Sendable {
        let ordinal: Int
        let frames: ClosedRange<Int>
    }

    /// Fewer commits than this are counted on the caller's thread alone.
    static let fewestForThreads = 16

    private let counter: CommitCounter
    private let jobs: [Job]
    /// Jobs `0 ..< inline` are the caller's own.
    private let inline: Int
    private let pages: GenerationPages

    private enum Result {
        case pending
        case counted(CommitCounter.Counted?)
    }

    private let condition = NSCondition()
    // The three below are read and written only while holding `condition`.
    private var results: [Result]
    private var stopped = false
    private var running = 0

    init(_ counter: CommitCounter, jobs: [Job], threads: Int = min(ProcessInfo.processInfo.activeProcessorCount, 4)) {
        self.counter = counter
        self.jobs = jobs
        pages = counter.pages()
        results = Array(repeating: .pending, count: jobs.count)
        let runs = jobs.count >= Self.fewestForThreads ? max(1, threads) : 1
        let size = (jobs.count + runs - 1) / max(1, runs)
        inline = runs == 1 ? jobs.count : size
        var start = inline
        while start < jobs.count {
            let run = start..<min(jobs.count, start + size)
            running += 1
            Thread.detachNewThread { [self] in work(run) }
            start = run.upperBound
        }
    }

    /// The counts of job `index`, waiting for the thread that counts it where need be.
    func counts(_ index: Int) -> CommitCounter.Counted? {
        guard index >= 0, index < jobs.count else { return nil }
        if index < inline { return counter.count(ordinal: jobs[index].ordinal, frames: jobs[index].frames, pages: pages) }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if case .counted(let counts) = results[index] {
                results[index] = .pending
                return counts
            }
            condition.wait()
        }
    }

    /// Stops the threads and waits for them: the descriptors they read stay open until then.
    func finish() {
        condition.lock()
        stopped = true
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work(_ run: Range<Int>) {
        let pages = counter.pages()
        for index in run {
            if condition.withLock({ stopped }) { break }
            let counts = counter.count(ordinal: jobs[index].ordinal, frames: jobs[index].frames, pages: pages)
            condition.withLock {
                results[index] = .counted(counts)
                condition.broadcast()
            }
        }
        condition.withLock {
            running -= 1
            condition.broadcast()
        }
    }
}

import Foundation

/// The pages of a store's generations, read beside SQLite for `CommitChangeReader`: one
/// commit after another, each page as it was before and after it.
///
/// Why a reader of its own rather than a copy per page: listing a `-wal` of 950 frames reads
/// some 2,000 pages, and an allocation, a `pread` and a copy for each cost more than the rest
/// of the listing together. So:
/// - the commits' own frames, which the walk reads in order, come from a window of
///   consecutive frames read with one `pread` (`cover`);
/// - other pages (the main file's, earlier frames', the b-trees' interior pages the row
///   lookups descend) are kept in a fixed ring of slots, evicted by the clock algorithm, so a
///   page read once for a commit serves the lookups and the commits after it;
/// - nothing is allocated per page, and memory is bounded (`windowBytes` + `slotBytes`)
///   whatever the size of the store or its `-wal`.
///
/// Every frame served is checked for the WAL's salts, as SQLite's own reader would: a `-wal`
/// restarted underneath fails the read (`failed`), never answering from another state.
final class GenerationPages {
    /// Bytes of consecutive frames read at once, and of pages kept in slots. Small on purpose:
    /// a commit writes a few pages, and the lookups revisit the same interior pages; every
    /// page of a buffer is a page fault the first time it is written (2,000 of them, for 4 MB
    /// each, cost more than the reads they saved).
    static let windowBytes = 256 << 10
    static let slotBytes = 512 << 10

    let pageSize: Int
    private let main: Int32
    private let wal: Int32
    private let frameSize: Int
    /// The `-wal`'s valid frames: none past it is read.
    private let frameCount: Int

    /// Frames `windowFirst ..< windowFirst + windowCount`, each with its header.
    private let window: UnsafeMutableRawBufferPointer
    private var windowFirst = 1
    private var windowCount = 0

    /// Each slot holds one frame (header and page), or a main-file page after an empty header.
    private let slots: UnsafeMutableRawBufferPointer
    private let slotCount: Int
    private var slotKeys: [Int64]
    private var referenced: [Bool]
    private var slotByKey: [Int64: Int] = [:]
    private var hand = 0

    /// Main-file pages `runFirst ..< runFirst + runCount`, read with one `pread` when pages are
    /// asked for in order (a walk of a table's leaves, which a tree written in order keeps in
    /// runs): one call a window rather than one a page.
    private let run: UnsafeMutableRawBufferPointer
    private var runFirst = 0
    private var runCount = 0
    /// The main-file page read before: the next one asked for starts a run.
    private var previousMainPage: UInt32 = 0

    /// A copy of one page, for a caller that needs a page to outlive the next read.
    private let scratch: UnsafeMutableRawBufferPointer

    /// Set when a frame could not be read or no longer carries the WAL's salts; cleared by the caller.
    var failed = false

    init(pageSize: Int, frameCount: Int, main: Int32, wal: Int32) {
        self.pageSize = pageSize
        self.main = main
        self.wal = wal
        self.frameCount = frameCount
        frameSize = pageSize + WALFrameHeader.size
        let windowFrames = max(1, min(frameCount, Self.windowBytes / frameSize))
        window = .allocate(byteCount: windowFrames * frameSize, alignment: 16)
        slotCount = max(16, Self.slotBytes / frameSize)
        slots = .allocate(byteCount: slotCount * frameSize, alignment: 16)
        slotKeys = Array(repeating: -1, count: slotCount)
        referenced = Array(repeating: false, count: slotCount)
        scratch = .allocate(byteCount: pageSize, alignment: 16)
        run = .allocate(byteCount: max(pageSize, Self.windowBytes / pageSize * pageSize), alignment: 16)
    }

    deinit {
        window.deallocate()
        slots.deallocate()
        scratch.deallocate()
        run.deallocate()
    }

    /// Reads the frames `frames` (a commit's, from 1) into the window, with the frames after
    /// them that fit, unless it holds them already. A commit larger than the window is read
    /// in part here and the rest frame by frame.
    func cover(_ frames: ClosedRange<Int>) {
        guard frames.lowerBound >= 1, frames.upperBound <= frameCount else { return }
        if frames.lowerBound >= windowFirst, frames.upperBound < windowFirst + windowCount { return }
        let count = min(window.count / frameSize, frameCount - frames.lowerBound + 1)
        let length = count * frameSize
        let got = pread(wal, window.baseAddress, length, off_t(WALLog.frameOffset(frames.lowerBound, pageSize: pageSize)))
        windowFirst = frames.lowerBound
        windowCount = got == length ? count : max(0, got) / frameSize
    }

    /// Page `number` as `image` holds it, valid until the next read; nil when the generation
    /// has no such page (or it cannot be read: then `failed` is set).
    func page(_ number: UInt32, in image: GenerationImage) -> UnsafeRawBufferPointer? {
        guard number > 0, Int(number) <= image.pageCount else { return nil }
        guard let frame = image.frames?.frame(holding: number, upTo: image.lastFrame) else {
            return mainPage(number, in: image)
        }
        let bytes: UnsafeMutableRawBufferPointer?
        if frame >= windowFirst, frame < windowFirst + windowCount {
            let start = (frame - windowFirst) * frameSize
            bytes = UnsafeMutableRawBufferPointer(rebasing: window[start..<(start + frameSize)])
        } else {
            bytes = slot(Int64(number) << 32 | Int64(frame)) { bytes in
                pread(wal, bytes.baseAddress, frameSize, off_t(WALLog.frameOffset(frame, pageSize: pageSize))) == frameSize
            }
        }
        guard let bytes, image.carriesSalts(UnsafeRawBufferPointer(bytes)) else {
            failed = true
            return nil
        }
        return UnsafeRawBufferPointer(rebasing: bytes[WALFrameHeader.size...])
    }

    /// Main-file page `number`: from the run, from a slot, or read (a run ahead of it when the
    /// page before was the last one asked for).
    private func mainPage(_ number: UInt32, in image: GenerationImage) -> UnsafeRawBufferPointer? {
        defer { previousMainPage = number }
        let index = Int(number)
        if index >= runFirst, index < runFirst + runCount {
            let start = (index - runFirst) * pageSize
            return UnsafeRawBufferPointer(rebasing: run[start..<(start + pageSize)])
        }
        if number == previousMainPage + 1, slotByKey[Int64(number) << 32] == nil {
            let count = min(run.count / pageSize, image.pageCount - index + 1)
            let got = pread(main, run.baseAddress, count * pageSize, off_t(Int64(number - 1) * Int64(pageSize)))
            runFirst = index
            runCount = max(0, got) / pageSize
            if runCount > 0 { return UnsafeRawBufferPointer(rebasing: run[0..<pageSize]) }
        }
        return slot(Int64(number) << 32) { bytes in
            pread(main, bytes.baseAddress! + WALFrameHeader.size, pageSize, off_t(Int64(number - 1) * Int64(pageSize))) == pageSize
        }.map { UnsafeRawBufferPointer(rebasing: $0[WALFrameHeader.size...]) }
    }

    /// Page `number` as `image` holds it, copied aside: it stays valid through the reads that
    /// follow, until the next `pageCopy`.
    func pageCopy(_ number: UInt32, in image: GenerationImage) -> UnsafeRawBufferPointer? {
        guard let bytes = page(number, in: image) else { return nil }
        scratch.copyMemory(from: bytes)
        return UnsafeRawBufferPointer(scratch)
    }

    /// The slot holding `key`, read with `fill` into a free one when none does.
    private func slot(_ key: Int64, fill: (UnsafeMutableRawBufferPointer) -> Bool) -> UnsafeMutableRawBufferPointer? {
        if let index = slotByKey[key] {
            referenced[index] = true
            return slotBytes(index)
        }
        // The clock: the first slot not referenced since the hand last passed it.
        while referenced[hand] {
            referenced[hand] = false
            hand = (hand + 1) % slotCount
        }
        let index = hand
        hand = (hand + 1) % slotCount
        if slotKeys[index] >= 0 { slotByKey[slotKeys[index]] = nil }
        slotKeys[index] = -1
        let bytes = slotBytes(index)
        guard fill(bytes) else {
            failed = true
            return nil
        }
        slotKeys[index] = key
        slotByKey[key] = index
        referenced[index] = true
        return bytes
    }

    private func slotBytes(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: slots[(index * frameSize)..<((index + 1) * frameSize)])
    }
}

import Foundation
import TestSupport
import XCTest

/// A second process commits 800 transfers between people's ages (the total never changes),
/// 20 handed to it at the start of each of 40 rounds of reads by pinned contexts: every read
/// of a pinned context must see the same rows until it is pinned again, and every snapshot
/// must add up to the total. Counted, not timed: a loaded machine makes the run longer,
/// never different.
final class GenerationStressTests: XCTestCase {
    func testPinnedContextsSeeNoTornOrMovingStateWhileAnotherProcessCommitsTransfers() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 50).path
        let total = Int(try SQLiteShell.read(store, "SELECT sum(ZAGE) FROM ZPERSON")) ?? -1
        let startVersions = try SQLiteShell.read(store, "SELECT sum(Z_OPT) FROM ZPERSON")

        // The writer: a sqlite3 shell fed 20 transfers at the start of each readers' round,
        // one transaction each, which it commits while the readers read.
        let writer = try RunningChild(["/usr/bin/sqlite3", store])
        let rounds = 40, perRound = 20
        var random = SeededGenerator(seed: 0x5EED_57E5)
        let seed = random.description
        writer.write(".timeout 60000\n")
        func feed() {
            for _ in 0..<perRound {
                let from = Int.random(in: 1...50, using: &random), to = Int.random(in: 1...50, using: &random)
                let amount = Int.random(in: 1...5, using: &random)
                writer.write("""
                    BEGIN IMMEDIATE;
                    UPDATE ZPERSON SET ZAGE = ZAGE - \(amount), Z_OPT = Z_OPT + 1 WHERE Z_PK = \(from);
                    UPDATE ZPERSON SET ZAGE = ZAGE + \(amount), Z_OPT = Z_OPT + 1 WHERE Z_PK = \(to);
                    COMMIT;

                    """)
            }
        }

        // The readers: two pinned contexts, re-pinned every few rounds (b to a's token), and
        // an unpinned one as a control. A batched fetch reads the IDs first and then each
        // batch in a statement of its own: unpinned, those reads can straddle a transfer.
        let session = try SessionDriver(store: store)
        session.run("context new a\ncontext new b\ncontext new control")
        let read = { (context: String) -> (rows: String, sum: Int) in
            let rows = session.run("fetch Person --context \(context) --keys age --refresh --batch-size 7 --format csv").out
            let sum = rows.split(separator: "\n").dropFirst().compactMap { $0.split(separator: ",").last.flatMap { Int($0) } }.reduce(0, +)
            return (rows, sum)
        }
        var violations: [String] = []
        var pins = 0, controlTears = 0
        var baseline: String?
        for round in 0..<rounds {
            feed()
            if round % 5 == 0 {
                session.run("pin --context a\npin a --context b")
                baseline = nil
                pins += 1
            }
            for context in ["a", "b"] {
                let (rows, sum) = read(context)
                if sum != total { violations.append("round \(round), \(context): total \(sum), not \(total)") }
                if let baseline, rows != baseline { violations.append("round \(round), \(context): the pinned rows moved") }
                if baseline == nil { baseline = rows }
            }
            if read("control").sum != total { controlTears += 1 }
        }
        writer.closeInput()
        XCTAssertEqual(writer.wait(), 0)
        XCTAssertEqual(try session.finish(), 0)

        let endVersions = try SQLiteShell.read(store, "SELECT sum(Z_OPT) FROM ZPERSON")
        let committed = ((Int(endVersions) ?? 0) - (Int(startVersions) ?? 0)) / 2
        print("stress (\(seed)): \(committed) transfers committed, \(rounds) rounds, \(pins) pins, "
              + "\(violations.count) violations; the unpinned control read a torn total \(controlTears) times")
        XCTAssertEqual(violations, [], seed)
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT sum(ZAGE) FROM ZPERSON"), String(total))
        // Every transfer the writer was given committed: the readers never blocked it.
        XCTAssertEqual(committed, rounds * perRound, seed)
        XCTAssertEqual(pins, rounds / 5)
    }
}

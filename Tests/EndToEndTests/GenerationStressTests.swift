import Foundation
import XCTest

/// A second process commits transfers between people's ages (the total never changes) for
/// ten seconds, while pinned contexts keep reading: every read of a pinned context must see
/// the same rows until it is pinned again, and every snapshot must add up to the total.
final class GenerationStressTests: XCTestCase {
    func testPinnedContextsSeeNoTornOrMovingStateWhileAnotherProcessCommitsTransfers() throws {
        let folder = try Fixtures.temporaryDirectory(self)
        let store = try Fixtures.exampleStore(in: folder, people: 50).path
        let total = Int(try SQLiteShell.read(store, "SELECT sum(ZAGE) FROM ZPERSON")) ?? -1
        let startVersions = try SQLiteShell.read(store, "SELECT sum(Z_OPT) FROM ZPERSON")

        // The writer: a sqlite3 shell fed transfers, one transaction each, for ten seconds.
        let writer = try RunningChild(["/usr/bin/sqlite3", store])
        let duration: TimeInterval = 10
        let started = Date()
        let feeding = Thread {
            var random = SystemRandomNumberGenerator()
            writer.write(".timeout 5000\n")
            while Date().timeIntervalSince(started) < duration {
                let from = Int.random(in: 1...50, using: &random), to = Int.random(in: 1...50, using: &random)
                let amount = Int.random(in: 1...5, using: &random)
                writer.write("""
                    BEGIN IMMEDIATE;
                    UPDATE ZPERSON SET ZAGE = ZAGE - \(amount), Z_OPT = Z_OPT + 1 WHERE Z_PK = \(from);
                    UPDATE ZPERSON SET ZAGE = ZAGE + \(amount), Z_OPT = Z_OPT + 1 WHERE Z_PK = \(to);
                    COMMIT;

                    """)
            }
            writer.closeInput()
        }
        feeding.start()

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
        var rounds = 0, pins = 0, controlTears = 0
        var baseline: String?
        while Date().timeIntervalSince(started) < duration + 0.5 {
            if rounds % 5 == 0 {
                session.run("pin --context a\npin a --context b")
                baseline = nil
                pins += 1
            }
            for context in ["a", "b"] {
                let (rows, sum) = read(context)
                if sum != total { violations.append("round \(rounds), \(context): total \(sum), not \(total)") }
                if let baseline, rows != baseline { violations.append("round \(rounds), \(context): the pinned rows moved") }
                if baseline == nil { baseline = rows }
            }
            if read("control").sum != total { controlTears += 1 }
            rounds += 1
        }
        feeding.cancel()
        writer.wait()
        XCTAssertEqual(try session.finish(), 0)

        let endVersions = try SQLiteShell.read(store, "SELECT sum(Z_OPT) FROM ZPERSON")
        let transfers = ((Int(endVersions) ?? 0) - (Int(startVersions) ?? 0)) / 2
        print("stress: \(transfers) transfers committed, \(rounds) rounds, \(pins) pins, "
              + "\(violations.count) violations; the unpinned control read a torn total \(controlTears) times")
        XCTAssertEqual(violations, [])
        XCTAssertEqual(try SQLiteShell.read(store, "SELECT sum(ZAGE) FROM ZPERSON"), String(total))
        XCTAssertGreaterThan(transfers, 100, "the writer must really have been committing")
        XCTAssertGreaterThan(pins, 3)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), duration)
    }
}

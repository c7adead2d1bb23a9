import Foundation
import GRDB
import ManagedStore
import StoreCreation
import XCTest

/// fetch, count and explain through the built binary, on example stores the tests write.
final class FetchCommandTests: ExampleStoreTestCase {
    func run(_ arguments: [String], stdin: String? = nil) throws -> CLI.Result {
        try CLI.run(arguments, stdin: stdin)
    }

    /// A table shows object IDs short (`Person/p1`), the store being the one it is about; JSON
    /// and CSV keep the URI. `--keys all` shows every key, to-many relationships included.
    func testTablesShowShortObjectIDsAndKeysAllShowsEveryKey() throws {
        let table = try run(["fetch", store, "Person", "--keys", "name,cars", "--limit", "2", "--sort", "name", "--format", "table"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertFalse(table.stdout.contains("x-coredata://"), table.stdout)
        XCTAssertTrue(table.stdout.contains("Person/p"), table.stdout)
        let csv = try run(["fetch", store, "Person", "--keys", "name", "--limit", "1", "--format", "csv"])
        XCTAssertTrue(csv.stdout.contains("x-coredata://\(Fixtures.exampleUUID)/Person/p"), csv.stdout)
        let all = try XCTUnwrap(CLI.json(["fetch", store, "Person", "--keys", "all", "--limit", "1", "--format", "json"]) as? [[String: Any]])
        let schema = try XCTUnwrap(CLI.json(["schema", store, "Person", "--format", "json"]) as? [String: Any])
        let properties = (schema["attributes"] as? [[String: Any]] ?? []) + (schema["relationships"] as? [[String: Any]] ?? [])
        let names = Set(properties.filter { $0["transient"] as? Bool != true }.compactMap { $0["name"] as? String })
        XCTAssertFalse(names.isEmpty)
        XCTAssertEqual(Set(all.first?.keys.map { $0 } ?? []), names.union(["objectID"]))
        XCTAssertNotNil(all.first?["tags"] as? [Any], "a to-many, as its object IDs")
    }

    /// A date written as text matches nothing, as in the app, and says why and what to write;
    /// an ISO 8601 `--arg` is the date an app passes for `%@`, and so is the CAST the warning
    /// gives. A number attribute against quoted text is answered by SQLite's affinity, warned.
    func testADateWrittenAsTextIsWarnedOfAndAnISOArgumentIsADate() throws {
        let text = try run(["count", store, "Person", "--where", #"birthday > "1990-01-01""#])
        XCTAssertEqual(text.status, 0)
        XCTAssertEqual(text.stdout, "0\n")
        XCTAssertTrue(text.stderr.contains("Person.birthday is a date") && text.stderr.contains(#"CAST(-347155200.000, "NSDate")"#)
                      && text.stderr.contains("1990-01-01 without quotes"), text.stderr)
        let expected = try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZBIRTHDAY > -347155200")
        XCTAssertNotEqual(expected, "0", "the example store has people born after 1990")
        for arguments in [["--where", "birthday > %@", "--arg", "1990-01-01"], ["--where", "birthday > %@", "--arg", "1990-01-01T00:00:00Z"],
                          ["--where", #"birthday > CAST(-347155200, "NSDate")"#]] {
            let dated = try run(["count", store, "Person"] + arguments)
            XCTAssertEqual(dated.stdout, expected + "\n", "\(arguments)")
            XCTAssertEqual(dated.stderr, "", "\(arguments)")
        }
        let number = try run(["count", store, "Person", "--where", #"age > "30""#])
        XCTAssertEqual(number.stdout, try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON WHERE ZAGE > 30") + "\n")
        XCTAssertTrue(number.stderr.contains("Person.age is a number"), number.stderr)
        // help fetch tells the date forms.
        XCTAssertTrue(try run(["help", "fetch"]).stdout.contains("2025-08-01T09:30:00Z"))
    }

    /// `--time-zone` shows dates in a zone, with the offset in force at each date, and
    /// `--stored-dates` the seconds the store holds beside them, in every front end; output in
    /// a zone still imports as the same dates; a zone that is none is one line and exit 64.
    func testDatesShowInTheZoneAskedForWithTheStoredValueBeside() throws {
        let rows = try SQLiteShell.read(store, "SELECT ZBIRTHDAY FROM ZPERSON WHERE ZBIRTHDAY IS NOT NULL ORDER BY Z_PK LIMIT 40")
            .split(separator: "\n").compactMap { Double($0) }
        XCTAssertEqual(rows.count, 40)
        let berlin = try XCTUnwrap(TimeZone(identifier: "Europe/Berlin"), "tzdata is not installed")
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = berlin
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expected = rows.map { formatter.string(from: Date(timeIntervalSinceReferenceDate: $0)) + " (\($0))" }
        XCTAssertTrue(expected.contains { $0.contains("+01:00") } && expected.contains { $0.contains("+02:00") }, "winter and summer dates")
        let csv = try run(["fetch", store, "Person", "--keys", "birthday", "--where", "birthday != nil", "--limit", "40",
                           "--format", "csv", "--time-zone", "Europe/Berlin", "--stored-dates"])
        XCTAssertEqual(csv.status, 0, csv.stderr)
        XCTAssertEqual(csv.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[1]) }, expected)
        // A session sets it for the commands that follow; a command's own option overrides it.
        let session = try run([store], stdin: """
            dates +02:00 stored
            dates
            fetch Person --keys birthday --where 'birthday != nil' --limit 1 --format line
            fetch Person --keys birthday --where 'birthday != nil' --limit 1 --format line --time-zone -05:00
            dates UTC plain
            fetch Person --keys birthday --where 'birthday != nil' --limit 1 --format json
            """)
        XCTAssertEqual(session.status, 0, session.stderr)
        let first = Date(timeIntervalSinceReferenceDate: rows[0])
        let at: (Int) -> String = { offset in
            let f = ISO8601DateFormatter()
            f.timeZone = TimeZone(secondsFromGMT: offset)
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return f.string(from: first).replacingOccurrences(of: "Z", with: "+00:00")
        }
        XCTAssertTrue(session.stdout.contains("dates +02:00 stored\n"), session.stdout)
        XCTAssertTrue(session.stdout.contains("birthday = \(at(7200)) (\(rows[0]))\n"), session.stdout)
        XCTAssertTrue(session.stdout.contains("birthday = \(at(-18_000)) (\(rows[0]))\n"), session.stdout)
        XCTAssertTrue(session.stdout.contains(#""birthday": "\#(at(0).dropLast(6))Z"}"#), session.stdout)
        // JSON in a zone imports as the same dates: nothing changes.
        let folder = try Fixtures.temporaryDirectory(self)
        let file = folder.appendingPathComponent("west.json").path
        let json = try run(["fetch", store, "Person", "--keys", "name,birthday", "--limit", "5", "--format", "json", "--time-zone", "-05:00"])
        XCTAssertTrue(json.stdout.contains("-05:00\""), json.stdout)
        try json.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let dry = try run(["import", store, file, "--entity", "Person", "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("5 unchanged"), dry.stdout)
        let bad = try run(["fetch", store, "Person", "--time-zone", "Mars/Olympus"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("unknown time zone 'Mars/Olympus'"), bad.stderr)
        XCTAssertEqual(bad.stdout, "")
    }

    /// Values with quotes, `%`, `*`, SQL and NUL bytes match themselves and nothing else.
    /// Paging by key walks the whole entity in the sort key's order, then the primary key's,
    /// with no object twice and none left out: ties (ages) and NULLs (homepages), up and down.
    func testPagesByKeyWalkTheWholeEntity() throws {
        for sort in ["age", "age:desc", "homepage", "homepage:desc", "name"] {
            let key = String(sort.split(separator: ":")[0])
            let all = try XCTUnwrap(CLI.json(["fetch", store, "Person", "--keys", key, "--format", "json"]) as? [[String: Any]])
            // The expected order: the key (NULL first ascending, last descending), then Z_PK.
            func pk(_ row: [String: Any]) -> Int { Int((row["objectID"] as? String ?? "").split(separator: "p").last ?? "") ?? 0 }
            let descending = sort.hasSuffix(":desc")
            let expected = all.sorted { a, b in
                let x = a[key] is NSNull ? nil : "\(a[key]!)", y = b[key] is NSNull ? nil : "\(b[key]!)"
                if x != y {
                    guard let x else { return !descending }
                    guard let y else { return descending }
                    let (xn, yn) = (Double(x), Double(y))
                    let less = xn != nil && yn != nil ? xn! < yn! : x < y
                    return descending ? !less : less
                }
                return pk(a) < pk(b)
            }.map(pk)
            var walked: [Int] = []
            var after = "start"
            while walked.count <= all.count {
                let page = try XCTUnwrap(CLI.json(["fetch", store, "Person", "--keys", key, "--sort", sort, "--after", after, "--limit", "7",
                                                   "--format", "json"]) as? [[String: Any]])
                walked += page.map(pk)
                guard page.count == 7, let last = page.last else { break }
                after = "Person/p\(pk(last))"
            }
            XCTAssertEqual(walked, expected, sort)
        }
        let two = try CLI.run(["fetch", store, "Person", "--sort", "age", "--sort", "name", "--after", "start"])
        XCTAssertEqual(two.status, 1)
        XCTAssertTrue(two.stderr.contains("paging by key follows one sort key"), two.stderr)
        let both = try CLI.run(["fetch", store, "Person", "--after", "start", "--offset", "2"])
        XCTAssertEqual(both.status, 64)
        let gone = try CLI.run(["fetch", store, "Person", "--sort", "age", "--after", "Person/p999"])
        XCTAssertEqual(gone.status, 1)
        XCTAssertTrue(gone.stderr.contains("Person/p999 is no longer in the store"), gone.stderr)
    }

    /// A count with a limit or an offset: the store applies them when nothing is pending (it
    /// reads at most that many rows), and the unsaved objects count first when something is.
    func testACountHonoursItsLimitAndOffsetWithAndWithoutPendingObjects() throws {
        let people = Int(try SQLiteShell.read(store, "SELECT count(*) FROM ZPERSON")) ?? 0
        XCTAssertEqual(try CLI.run(["fetch", store, "Person", "--as", "count", "--limit", "5"]).stdout, "5\n")
        XCTAssertEqual(try CLI.run(["fetch", store, "Person", "--as", "count", "--limit", "5", "--offset", String(people - 2)]).stdout, "2\n")
        XCTAssertEqual(try CLI.run(["fetch", store, "Person", "--as", "count", "--offset", String(people + 3)]).stdout, "0\n")
        let logged = try CLI.run([store, "-c", "sqldebug 1", "-c", "fetch Person --as count --limit 5"])
        XCTAssertTrue((logged.stdout + logged.stderr).contains("SELECT COUNT(*) FROM (SELECT 1 FROM ZPERSON t0 LIMIT 5)"), logged.stdout + logged.stderr)
        let pending = try CLI.run([store, "-c", "insert Person name=z id=00000000-0000-0000-0000-000000000001 isActive=1",
                                   "-c", "fetch Person --as count --offset \(people - 2)", "-c", "fetch Person --as count --limit 2 --offset \(people - 2)"])
        XCTAssertEqual(pending.stdout.split(separator: "\n").suffix(2), ["3", "2"], pending.stdout + pending.stderr)
    }

    func testAwkwardValuesMatchLiterally() throws {
        let awkward = ["O'Brien", "say \"hi\"", "100%", "a*b", "x'; DROP TABLE ZPERSON; --", "nul\u{0}byte", "back\\slash", "_under%"]
        let path = folder.appendingPathComponent("Awkward.sqlite").path
        let model = try XcdatamodelReader.model(atPath: Fixtures.packageRoot.appendingPathComponent("Examples/People.xcdatamodeld").path)
        try StoreCreator.create(at: path, model: model)
        try StoreLoader.load(path) { loader in
            for name in awkward + ["O", "100", "ab", "x", "nul", "say"] { try loader.insert("Person", ["name": name]) }
        }
        // GRDB binds text as a C string; write the NUL byte with SQL so the row really holds it.
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "UPDATE ZPERSON SET ZNAME = CAST(x'6E756C0062797465' AS TEXT) WHERE Z_PK = (SELECT MIN(Z_PK) FROM ZPERSON WHERE ZNAME = 'nul')") }
        try queue.close()
        func quoted(_ s: String) -> String {
            "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\u{0}", with: "\\u0000") + "\""
        }
        for name in awkward {
            // In a LIKE pattern `*`, `?` and `\` are special; escaped, they match themselves.
            let pattern = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "*", with: "\\*")
            for (predicate, value) in [("name == %@", name), ("name LIKE %@", pattern), ("name BEGINSWITH %@", name), ("name IN {%@}", name)] {
                let result = try run(["count", path, "Person", "--where", predicate, "--arg", quoted(value)])
                XCTAssertEqual(result.status, 0, "\(predicate) \(value): \(result.stderr)")
                XCTAssertEqual(result.stdout, "1\n", "\(predicate) with \(value.debugDescription)")
            }
        }
        XCTAssertEqual(try run(["count", path, "Person", "--where", "name LIKE 'a*b'"]).stdout, "2\n", "unescaped, * is a wildcard")
        XCTAssertEqual(try run(["count", path, "Person"]).stdout, "\(awkward.count + 6)\n", "the table is still there")
    }

    /// A one-shot fetch is a session of one command: the same SQL, the same rows, in every
    /// result type, so the two cannot drift apart.
    func testOneShotAndSessionRunTheSameFetch() throws {
        let requests: [[String]] = [
            ["Person"],
            ["Person", "--where", "age > 30 AND name BEGINSWITH \"dave1\"", "--sort", "age:desc", "--limit", "4", "--keys", "name,age"],
            ["Car", "--keys", "owner,owner.name", "--sort", "name"],
            ["Person", "--as", "ids", "--limit", "3"],
            ["Person", "--as", "dicts", "--keys", "name", "--offset", "45"],
            ["Person", "--batch-size", "7", "--limit", "20"],
        ]
        // The fetch's own statements: those that read an entity's table (`t0`), not the
        // ones that open the store.
        func sql(_ stderr: String) -> [String] {
            stderr.split(separator: "\n").filter { $0.hasPrefix("CoreData: sql: SELECT ") && $0.contains(" t0") }.map(String.init)
        }
        for request in requests {
            for format in ["csv", "json"] {
                let words = request + ["--format", format]
                let alone = try run(["--sql-debug", "1", "fetch", store] + words)
                let line = (["fetch"] + words).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
                let inSession = try run(["--sql-debug", "1", store, "-c", line])
                XCTAssertEqual(alone.status, 0, alone.stderr)
                XCTAssertEqual(inSession.status, 0, inSession.stderr)
                XCTAssertEqual(alone.stdout, inSession.stdout, line)
                XCTAssertFalse(sql(alone.stderr).isEmpty, line)
                XCTAssertEqual(sql(alone.stderr), sql(inSession.stderr), line)
            }
        }
        // Object IDs only select the keys, as managedObjectIDResultType does.
        let ids = try run(["--sql-debug", "1", "fetch", store, "Person", "--as", "ids"])
        XCTAssertEqual(sql(ids.stderr), ["CoreData: sql: SELECT 0, t0.Z_PK FROM ZPERSON t0"])
    }

    /// A session keeps what it returned last, registered as faults; rows an earlier fetch
    /// left realized keep showing their in-memory values.
    func testASessionRegistersWhatItsLastFetchReturned() throws {
        let result = try run([store, "-c", "fetch Person --where 'age > 70' --keys name", "-c", "registered --format csv",
                              "-c", "update Person/p2 name=\"changed\"", "-c", "fetch Person --where 'name BEGINSWITH \"ch\"' --format csv --keys name"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let registered = lines.filter { $0.hasSuffix(",fault") }
        let old = try run(["count", store, "Person", "--where", "age > 70"]).stdout
        XCTAssertEqual("\(registered.count)\n", old, result.stdout)
        XCTAssertEqual(lines.suffix(2), ["objectID,name", "x-coredata://5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F/Person/p2,changed"])
    }

    func testFetchJSONShape() throws {
        let result = try run(["fetch", store, "Car", "--where", "owner.name == 'dave1'", "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let objects = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(objects.count, 1)
        let car = objects[0]
        XCTAssertEqual(car["objectID"] as? String, "x-coredata://5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F/SportsCar/p2")
        XCTAssertEqual(car["owner"] as? String, "x-coredata://5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F/Person/p2")
        XCTAssertEqual(Set(car.keys), ["objectID", "name", "plate", "year", "owner"])
        let people = try JSONSerialization.jsonObject(with: Data(try run(["fetch", store, "Person", "--where", "name == 'dave3'", "--format", "json"]).stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(people.first?["birthday"] as? String, "1978-04-08T09:38:37.000Z")
        XCTAssertEqual(people.first?["photo"] as? String, "iVBORw==")
        XCTAssertEqual(people.first?["isActive"] as? Bool, true)
    }

    func testSortLimitOffsetKeysAndResultTypes() throws {
        let names = try run(["fetch", store, "Person", "--sort", "age:desc", "--sort", "name", "--limit", "3", "--offset", "1",
                             "--keys", "name,age", "--as", "dicts", "--format", "csv"])
        XCTAssertEqual(names.stdout, "name,age\ndave29,76\ndave41,76\ndave44,74\n")
        let ids = try run(["fetch", store, "Tag", "--as", "ids", "--format", "csv", "--sort", "name"])
        XCTAssertEqual(ids.stdout.split(separator: "\n").count, 5)
        XCTAssertTrue(ids.stdout.hasPrefix("objectID\nx-coredata://5E1F4C6B-2D8A-4B7E-9C3D-0A1B2C3D4E5F/Tag/p"))
        XCTAssertEqual(try run(["fetch", store, "SportsCar", "--as", "count"]).stdout, "13\n")
        XCTAssertEqual(try run(["count", store, "Car", "--format", "json"]).stdout, "{\"count\": 50}\n")
        // A batched fetch returns what an unbatched one does, in the same order.
        let plain = try run(["fetch", store, "Car", "--sort", "year", "--sort", "plate", "--format", "csv"])
        let batched = try run(["fetch", store, "Car", "--sort", "year", "--sort", "plate", "--format", "csv", "--batch-size", "7"])
        XCTAssertEqual(plain.stdout, batched.stdout)
        XCTAssertEqual(plain.stdout.split(separator: "\n").count, 51)
    }

    /// To-many relationships show when `--keys` names them: `cars.@count` as the number in
    /// every format (a count subquery in dictionaries), `cars` as the object IDs; both count
    /// a context's unsaved changes, as the app's `person.cars` does.
    func testToManyRelationshipsShowAsCountsAndObjectIDsWhenAsked() throws {
        // Some people without a car, so that the counts differ.
        XCTAssertEqual(try run(["batch-delete", store, "Car", "--where", "year < 2000"]).status, 0)
        // What the store holds, by the sqlite3 shell: each person's cars and tags.
        let expected = try SQLiteShell.run(store, """
            SELECT p.ZNAME || ',' || (SELECT count(*) FROM ZCAR c WHERE c.ZOWNER = p.Z_PK) || ','
                || (SELECT count(*) FROM Z_3TAGS j WHERE j.Z_3PEOPLE = p.Z_PK) FROM ZPERSON p ORDER BY p.ZNAME LIMIT 6
            """)
        XCTAssertTrue(expected.contains(",0,") && expected.contains(",1,") && expected.contains(",2"), "counts that differ: \(expected)")
        for result in ["objects", "dicts"] {
            let csv = try run(["fetch", store, "Person", "--keys", "name,cars.@count,tags.@count", "--sort", "name", "--limit", "6",
                               "--as", result, "--format", "csv"])
            XCTAssertEqual(csv.status, 0, csv.stderr)
            XCTAssertEqual(csv.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").suffix(3).joined(separator: ",") },
                           expected.split(separator: "\n").map(String.init), result)
            XCTAssertTrue(csv.stdout.hasPrefix(result == "dicts" ? "name,cars.@count,tags.@count\n" : "objectID,name,cars.@count,tags.@count\n"))
        }

        // The IDs, in JSON, are the rows the join table and the owner key name.
        let json = try run(["fetch", store, "Person", "--keys", "name,tags,cars", "--where", "tags.@count > 1", "--format", "json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let people = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertFalse(people.isEmpty)
        for person in people {
            let key = try XCTUnwrap((person["objectID"] as? String)?.split(separator: "/").last?.dropFirst())
            let tags = try SQLiteShell.run(store, "SELECT Z_4TAGS FROM Z_3TAGS WHERE Z_3PEOPLE = \(key) ORDER BY Z_4TAGS")
            XCTAssertEqual(person["tags"] as? [String], tags.split(separator: "\n").map { uri("Tag/p\($0)") }, "\(person)")
            let cars = try SQLiteShell.run(store, "SELECT Z_PK, Z_ENT FROM ZCAR WHERE ZOWNER = \(key) ORDER BY Z_PK")
            XCTAssertEqual((person["cars"] as? [String])?.count, cars.split(separator: "\n").count, "\(person)")
        }

        // A dictionary cannot hold a to-many relationship, in Core Data or here.
        let refused = try run(["fetch", store, "Person", "--keys", "name,cars", "--as", "dicts"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr, "cdinspect: error: cannot fetch key cars: cars is a to-many relationship, which a dictionary result cannot hold; fetch cars.@count, or the objects\n")
        XCTAssertEqual(try run(["fetch", store, "Person", "--keys", "name.@count"]).status, 1)
        XCTAssertEqual(try run(["fetch", store, "Person", "--keys", "cars.year"]).status, 1)

        // A car given to dave0 and not saved counts in the session's fetch, not in the store's.
        let session = try run([store], stdin: """
            insert Car name="Unsaved" plate="X-1" year=2020 owner=Person/p1
            fetch Person --where 'name == "dave0"' --keys cars.@count --format csv
            fetch Person --where 'name == "dave0"' --keys cars.@count --format csv --as dicts
            """ + "\n")
        XCTAssertEqual(session.status, 0, session.stderr)
        let stored = try SQLiteShell.run(store, "SELECT count(*) FROM ZCAR WHERE ZOWNER = 1")
        XCTAssertEqual(session.stdout.split(separator: "\n").filter { !$0.hasPrefix("objectID") && !$0.hasPrefix("cars") && !$0.contains("Car/") },
                       ["\(uri("Person/p1")),\(Int(stored)! + 1)", stored].map { Substring($0) }, session.stdout)
    }

    /// Options may come before the `where` form, which takes the rest of the line.
    func testOptionsBeforeTheWhereForm() throws {
        let optioned = try run([store, "-c", "fetch Person --limit 2 --keys name,age --format csv where age > 70"])
        let plain = try run(["fetch", store, "Person", "--limit", "2", "--keys", "name,age", "--format", "csv", "--where", "age > 70"])
        XCTAssertEqual(optioned.status, 0, optioned.stderr)
        XCTAssertEqual(optioned.stdout, plain.stdout)
        XCTAssertEqual(optioned.stdout.split(separator: "\n").count, 3)
        let bogus = try run([store, "-c", "fetch Person bogus where age > 70"])
        XCTAssertEqual(bogus.status, 64, bogus.stderr)
    }

    func testWhereFormInSessionsAndErrors() throws {
        let script = "count Person where name BEGINSWITH 'dave1' AND age > 0\nformat csv\nfetch Tag where name IN {'work', 'gym'}\n"
        let result = try run([store], stdin: script)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("11\nobjectID,name\n"), result.stdout)
        let bad = try run([store], stdin: "count Person\ncount Person where name LIKEx 'a'\ncount Person\n")
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stdout, "50\n")
        XCTAssertEqual(bad.stderr, "cdinspect: error: line 2: predicate syntax error at column 6: expected a comparison operator (==, !=, <, >, IN, LIKE, …), found 'LIKEx'\n  name LIKEx 'a'\n       ^\n")
        let toMany = try run(["count", store, "Person", "--where", "cars.year > 2000"])
        XCTAssertEqual(toMany.status, 1)
        XCTAssertTrue(toMany.stderr.contains("to-many key not allowed here"))
        let all = try run(["count", store, "Person", "--where", "ALL cars.year > 2000"])
        XCTAssertEqual(all.status, 0)
        XCTAssertTrue(all.stderr.contains("warning: Core Data's SQLite store rejects ALL"), all.stderr)
        XCTAssertEqual(try run(["fetch", store, "Person", "--sort", "cars"]).status, 1)
        XCTAssertEqual(try run(["fetch", store, "Person", "--as", "rows"]).status, 64)
    }

    /// explain prints the SQL the fetch runs, as the fetch's own debug log shows it, for every
    /// result type with `--keys`: objects and IDs load whole rows whatever keys are shown.
    func testExplainPrintsTheSQLTheFetchRuns() throws {
        for resultType in ["objects", "ids", "dicts"] {
            let shape = ["Person", "--keys", "name,age", "--where", "age > 30", "--sort", "name", "--as", resultType]
            let explained = try run(["explain", store] + shape)
            XCTAssertEqual(explained.status, 0, explained.stderr)
            let fetched = try run(["fetch", store] + shape + ["--sql-debug", "1"])
            XCTAssertEqual(fetched.status, 0, fetched.stderr)
            let logged = fetched.stderr.split(separator: "\n").filter { $0.hasPrefix("CoreData: sql: SELECT") && $0.contains(" FROM ZPERSON t0") }
            XCTAssertEqual(logged.map { String($0.dropFirst("CoreData: sql: ".count)) },
                           [explained.stdout.split(separator: "\n").first.map(String.init) ?? ""], resultType)
        }
        let objects = try run(["explain", store, "Person", "--keys", "name"]).stdout
        XCTAssertTrue(objects.contains("t0.ZPHOTO"), "an object is loaded whole: \(objects)")
    }

    func testExplainShowsSQLAndBinds() throws {
        let result = try run(["explain", store, "Person", "--where", "ANY tags.name ==[c] %@ AND age > %d", "--arg", "\"Work\"", "--arg", "30"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, """
            SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZAGE, t0.ZBALANCE, t0.ZBIRTHDAY, t0.ZHOMEPAGE, t0.ZID, t0.ZISACTIVE, t0.ZNAME, t0.ZPHOTO, t0.ZSCORE FROM ZPERSON t0 WHERE (EXISTS (SELECT 1 FROM Z_3TAGS t2 JOIN ZTAG t1 ON t1.Z_PK = t2.Z_4TAGS WHERE t2.Z_3PEOPLE = t0.Z_PK AND (cdi_fold(t1.ZNAME, 1) = ?))) AND (t0.ZAGE > ?)
              bind[0] = "work"
              bind[1] = 30

            """)
        let byte = try Data(contentsOf: URL(fileURLWithPath: store))
        _ = try run(["fetch", store, "Person", "--where", "name MATCHES 'dave[0-9]+'"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), byte, "a fetch changes nothing on disk")
    }
}

import ManagedStore

/// `cloudkit`'s answers as reports: for programs, structured objects; for people, one
/// `key: value` line per part (values in words), the verdict last.
enum CloudKitReport {
    static let eventColumns = ["event", "type", "started", "ended", "succeeded", "errorDomain", "errorCode", "error", "meaning",
                               "affectedObjects", "finishedObjects"]

    /// The columns of an event table: what an error means is a paragraph, kept to the
    /// structured answer (and to `status`, which explains the failures it lists).
    static let tableEventColumns = eventColumns.filter { $0 != "meaning" }

    static func values(_ e: CloudKitMirroring.Event, withMeaning: Bool = true) -> [OutputValue] {
        var values: [OutputValue] = [
            .integer(e.number), .string(e.type.description), e.started.map(OutputValue.date) ?? .null, e.ended.map(OutputValue.date) ?? .null,
            e.succeeded.map(OutputValue.bool) ?? .null, e.error.map { .string($0.domain) } ?? .null, e.error.map { .integer($0.code) } ?? .null,
            e.error?.name.map(OutputValue.string) ?? .null]
        if withMeaning { values.append(e.error?.meaning.map(OutputValue.string) ?? .null) }
        return values + [e.affectedObjects.map(OutputValue.integer) ?? .null, e.finishedObjects.map(OutputValue.integer) ?? .null]
    }

    /// A list of events: objects with what each error means for programs, a table without it.
    static func report(_ events: [CloudKitMirroring.Event]) -> Report {
        Report(value: { .array(events.map { object($0) }) },
               people: { [.rows(tableEventColumns, events.map { values($0, withMeaning: false) })] })
    }

    static func object(_ e: CloudKitMirroring.Event?) -> OutputValue {
        guard let e else { return .null }
        return .object(Array(zip(eventColumns, values(e))))
    }

    /// "export #12 started 2024-…, ended 2024-…: failed with CKErrorDomain 2 (partialFailure)"
    static func sentence(_ e: CloudKitMirroring.Event?) -> OutputValue {
        guard let e else { return .string("never") }
        var text = "\(e.type) event \(e.number) started \(e.started.map(OutputValue.isoDate) ?? "at an unknown time")"
        if let ended = e.ended {
            text += ", ended \(OutputValue.isoDate(ended))"
            switch e.succeeded {
            case true?: text += ": succeeded"
            case false?: text += ": failed" + (e.error.map { " with \($0)" } ?? "")
            case nil: text += ": outcome not recorded"
            }
        } else {
            text += ", not ended (running, or the app stopped first)"
        }
        if let affected = e.affectedObjects { text += "; \(affected) object(s)" }
        return .string(text)
    }

    static func uris(_ group: CloudKitStatus.ObjectGroup, store: PersistentStore) -> [OutputValue] {
        group.examples.map { .objectURI(prefix: ObjectID.uriPrefix(storeUUID: store.uuid, entityName: group.entityName), key: $0) }
    }

    static func groups(_ groups: [CloudKitStatus.ObjectGroup], store: PersistentStore, json: Bool) -> OutputValue {
        if json {
            return .array(groups.map { .object([("entity", .string($0.entityName)), ("count", .integer($0.count)),
                                                 ("examples", .array(uris($0, store: store)))]) })
        }
        if groups.isEmpty { return .string("none") }
        // In words, the short object IDs every command accepts back.
        return .string(groups.map { g in
            "\(g.entityName) \(g.count) (" + g.examples.map { "\(g.entityName)/p\($0)" }.joined(separator: ", ")
                + (g.count > Int64(g.examples.count) ? ", …" : "") + ")"
        }.joined(separator: "; "))
    }

    static func report(_ status: CloudKitStatus, store: PersistentStore) -> Report {
        Report(value: { .object(pairs(status, store: store, json: true)) },
               people: { [.record(pairs(status, store: store, json: false))] })
    }

    /// The status's parts: structured for programs (`json`), in words for people.
    private static func pairs(_ status: CloudKitStatus, store: PersistentStore, json: Bool) -> [(String, OutputValue)] {
        var pairs: [(String, OutputValue)] = [("path", .string(store.path))]
        if status.recordsEvents {
            pairs += json
                ? [("lastExport", object(status.lastExport)), ("lastSuccessfulExport", object(status.lastSuccessfulExport)),
                   ("lastImport", object(status.lastImport)), ("lastSuccessfulImport", object(status.lastSuccessfulImport))]
                : [("lastExport", sentence(status.lastExport)), ("lastSuccessfulExport", sentence(status.lastSuccessfulExport)),
                   ("lastImport", sentence(status.lastImport)), ("lastSuccessfulImport", sentence(status.lastSuccessfulImport))]
        } else {
            pairs.append(("events", json ? .null : .string("not recorded by this OS version (no ANSCKEVENT table)")))
        }
        pairs.append(("lastExportedToken", status.lastExportedToken.map(OutputValue.integer) ?? (json ? .null : .string("none recorded (no \(CloudKitMirroring.lastHistoryTokenKey) entry): every change in history counts as not exported"))))
        switch status.backlog {
        case .noHistory:
            pairs.append(("notExported", json ? .null : .string("unknown: the store keeps no persistent history, which the exporter reads")))
        case .expired(let token, let oldest):
            let text = "history after token \(token) was purged (oldest kept: \(oldest.map(String.init) ?? "none")): "
                + "the exporter cannot go on from it (history token expired)"
            pairs.append(("notExported", json ? .object([("expired", .bool(true)), ("oldestToken", oldest.map(OutputValue.integer) ?? .null)]) : .string(text)))
        case .changes(let tallies, let imported):
            let changes = tallies.reduce(0) { $0 + $1.changes }
            if json {
                pairs.append(("notExported", .object([
                    ("changes", .integer(changes)),
                    ("byEntityAndAuthor", .array(tallies.map {
                        .object([("entity", .string($0.entityName)), ("author", HistoryRows.text($0.author)),
                                 ("transactions", .integer($0.transactions)), ("changes", .integer($0.changes))])
                    })),
                    ("importedChanges", .integer(imported)),
                ])))
            } else {
                let detail = tallies.map { "\($0.entityName) by \($0.author ?? "no author"): \($0.changes) in \($0.transactions) transaction(s)" }
                pairs.append(("notExported", .string("\(changes) change(s)" + (detail.isEmpty ? "" : ": " + detail.joined(separator: "; ")))))
                if imported > 0 { pairs.append(("imported", .string("\(imported) change(s) imported from iCloud since (never exported again)"))) }
            }
        }
        pairs += json
            ? [("pendingUploads", .integer(status.pendingUploads)), ("pendingCloudDeletes", .integer(status.pendingCloudDeletes)),
               ("pendingLocalDeletes", .integer(status.pendingLocalDeletes))]
            : [("pending", .string("\(status.pendingUploads) upload(s), \(status.pendingCloudDeletes) cloud delete(s), "
                                   + "\(status.pendingLocalDeletes) local delete(s)"))]
        pairs.append(("neverExported", groups(status.neverExported, store: store, json: json)))
        if json {
            pairs.append(("unfinishedEvents", .array(status.unfinishedEvents.map { object($0) })))
            pairs.append(("failedEvents", .array(status.failedEvents.map { object($0) })))
            pairs.append(("failedEventCount", .integer(Int64(status.failedEventCount))))
        } else {
            pairs.append(("unfinished", status.unfinishedEvents.isEmpty ? .string("none")
                          : .string(status.unfinishedEvents.map { sentence($0).text }.joined(separator: "; "))))
            if status.failedEvents.isEmpty { pairs.append(("failed", .string("none"))) }
            for (i, e) in status.failedEvents.enumerated() {
                let meaning = e.error?.meaning.map { " — \($0)" } ?? ""
                pairs.append((i == 0 ? "failed" : "", .string(sentence(e).text + meaning)))
            }
            if status.failedEventCount > status.failedEvents.count {
                pairs.append(("", .string("… \(status.failedEventCount - status.failedEvents.count) older failed event(s)")))
            }
        }
        pairs.append(("unrecordedSaves", groups(status.unrecorded, store: store, json: json)))
        if status.unjudgedObjects > 0 || json {
            pairs.append(("unjudgedObjects", json ? .integer(status.unjudgedObjects)
                          : .string("\(status.unjudgedObjects) object(s) whose insert history no longer holds could not be judged")))
        }
        pairs.append(("verdict", .string(status.verdict)))
        return pairs
    }

    static func report(_ story: CloudKitObjectStory, store: PersistentStore) -> Report {
        let uri = OutputValue.objectURI(prefix: ObjectID.uriPrefix(storeUUID: store.uuid, entityName: story.entityName), key: story.primaryKey)
        let record = story.record
        let changeColumns = ["token", "timestamp", "author", "type", "properties", "exported"]
        func values(_ c: CloudKitObjectStory.Change) -> [OutputValue] {
            [.integer(c.token), c.timestamp.map(OutputValue.date) ?? .null, HistoryRows.text(c.author), .string(c.type),
             c.properties.map { .array($0.map(OutputValue.string)) } ?? .null, c.exported.map(OutputValue.bool) ?? .null]
        }
        let pairs: [(String, OutputValue)] = [
            ("objectID", uri), ("exists", .bool(story.exists)),
            ("recordName", HistoryRows.text(record?.recordName)), ("zone", HistoryRows.text(record?.zoneName)),
            ("hasRecordMetadata", .bool(record != nil)),
            ("needsUpload", record.map { .bool($0.needsUpload) } ?? .null),
            ("needsCloudDelete", record.map { .bool($0.needsCloudDelete) } ?? .null),
            ("needsLocalDelete", record.map { .bool($0.needsLocalDelete) } ?? .null),
            ("recordLastExportedToken", record?.lastExportedToken.map(OutputValue.integer) ?? .null),
            ("pendingExportToken", record?.pendingExportToken.map(OutputValue.integer) ?? .null),
            ("lastExportedToken", story.lastExportedToken.map(OutputValue.integer) ?? .null),
            ("unrecordedSaves", story.unrecordedSaves.map(OutputValue.integer) ?? .null),
        ]
        let changes = ReportPart.rows(changeColumns, story.changes.map(values))
        return Report(
            value: {
                .object(pairs + [("changes", .array(story.changes.map { .object(Array(zip(changeColumns, values($0)))) })),
                                 ("exportsSince", .array(story.exportsSince.map { object($0) })),
                                 ("verdict", .string(story.verdict))])
            },
            people: {
                [.record(pairs), .gap, changes] + (story.changes.isEmpty ? [.line("(history holds no change to it)")] : [])
                    + [.gap, .rows(tableEventColumns, story.exportsSince.map { Self.values($0, withMeaning: false) })]
                    + (story.exportsSince.isEmpty ? [.line("(no export event since its last change)")] : [])
                    + [.gap, .line("verdict: " + story.verdict)]
            },
            csv: { [.record(pairs), changes] })
    }

    /// The columns of `cloudkit events --follow` in CSV: what changed, then the event's.
    static let followColumns = ["change"] + tableEventColumns

    static func emit(_ change: CloudKitEventFollower.Change, to events: EventStream) {
        let (what, event): (String, CloudKitMirroring.Event) = {
            switch change {
            case .started(let e): return ("started", e)
            case .ended(let e): return ("ended", e)
            }
        }()
        events.emit(value: {
            .object([("change", .string(what))] + Array(zip(eventColumns, values(event))))
        }, row: {
            [.string(what)] + values(event, withMeaning: false)
        }, sentence: {
            var text = "\(what) \(event.type) event \(event.number)"
            if what == "started" {
                text += " at \(event.started.map(OutputValue.isoDate) ?? "an unknown time")"
            } else {
                text += " at \(event.ended.map(OutputValue.isoDate) ?? "an unknown time"): "
                switch event.succeeded {
                case true?: text += "succeeded"
                case false?: text += "failed" + (event.error.map { " with \($0)" } ?? "") + (event.error?.meaning.map { " — \($0)" } ?? "")
                case nil: text += "outcome not recorded"
                }
                if let affected = event.affectedObjects { text += " (\(affected) object(s))" }
            }
            return text
        })
    }
}

import Inspector

/// What a finished command leaves for the process's exit to free. Once its store's
/// connections are closed, a session holds only memory. Releasing it would free that
/// memory object by object just before `exit` frees all of it at once. Worse, freeing a
/// connection's dispatch queue makes libdispatch start a worker thread only to do that.
/// Together that is a few percent of a one-shot `count`'s run.
enum Teardown {
    nonisolated(unsafe) private static var kept: [Session] = []

    /// Closes the session's connections (the writer's last, which checkpoints a changed
    /// store's `-wal` as releasing them did) and keeps the session until the process exits.
    static func closeAndKeep(_ session: Session) {
        session.close()
        kept.append(session)
    }
}

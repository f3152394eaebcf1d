/// When a background loop (outbox delivery, shelf publishing, periodic jobs) stops.
extension Error {
    /// True for the cancellation of the loop's own task (graceful shutdown); false for a `CancellationError` that a
    /// library threw for work it gave up on while the task goes on: PostgresNIO ends a row stream with one when its
    /// connection is closed under it (a PostgreSQL restart). Stopping on that one left a patron service running with
    /// its outbox and shelf publishing silently dead; such a pass is now logged and tried again.
    public var stopsBackgroundLoop: Bool { self is CancellationError && Task.isCancelled }
}

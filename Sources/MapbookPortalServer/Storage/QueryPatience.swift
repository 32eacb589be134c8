import Synchronization

/// The queries of a PostgreSQL store under way, each with the moment it runs out of patience:
/// one sweep a quarter of a second cancels those past it. A timer per query (a sleeping task
/// racing each one in a task group) woke the runtime's timer threads twice a request, a tenth of
/// the cluster's CPU under load (docs/PERFORMANCE.md "Portal pages").
final class QueryPatience: Sendable {
    static let sweepEvery = Duration.milliseconds(250)

    private struct Query: Sendable {
        var deadline: ContinuousClock.Instant
        var expire: @Sendable () -> Void
    }

    /// Set when a query was cancelled for its time, not for its caller's.
    private final class Expired: Sendable {
        let flag = Atomic(false)
    }

    private let running = Mutex<(next: Int, queries: [Int: Query])>((0, [:]))

    /// `body`'s result, or nil when `patience` passed first (the query is then cancelled, and
    /// this returns once it has stopped). A caller's cancellation reaches the query too.
    func run<T: Sendable>(patience: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        let expired = Expired()
        let task = Task { try await body() }
        let id = running.withLock { r in
            let id = r.next
            r.next += 1
            r.queries[id] = Query(deadline: .now + patience) {
                expired.flag.store(true, ordering: .relaxed)
                task.cancel()
            }
            return id
        }
        let result = await withTaskCancellationHandler { await task.result } onCancel: { task.cancel() }
        running.withLock { _ = $0.queries.removeValue(forKey: id) }
        if case .success(let value) = result { return value }
        if expired.flag.load(ordering: .relaxed) { return nil }
        return try result.get()
    }

    /// Cancels the queries past their moment, until the task running it is cancelled.
    func sweep() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.sweepEvery)
            let now = ContinuousClock.now
            // Taken out as they expire, so each is cancelled once however long it takes to stop.
            let expired = running.withLock { r in
                let past = r.queries.filter { $0.value.deadline <= now }
                for id in past.keys { r.queries[id] = nil }
                return past.values.map(\.expire)
            }
            for expire in expired { expire() }
        }
    }
}

/// Background jobs take turns: each stages whole packages and works on NIO's thread pool,
/// which every request shares, so a process runs `limit` at a time and the others wait, in
/// the order they came, as submitted jobs.
actor JobQueue {
    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int = 1) { self.limit = limit }

    /// Waits for a turn.
    func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives the turn to the next job waiting.
    func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

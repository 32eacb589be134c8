import Testing

@testable import MapbookPortalServer

/// A PostgreSQL store's queries against its patience: a query past it is cancelled and reported
/// as such, one within it gives its answer or its own error.
@Suite struct QueryPatienceTests {
    struct Refused: Error {}

    @Test func aQueryPastItsPatienceIsCancelledAndTheOthersAnswer() async throws {
        let watch = QueryPatience()
        let sweeper = Task { await watch.sweep() }
        defer { sweeper.cancel() }
        let slow = try await watch.run(patience: .milliseconds(100)) { () async throws -> Int in
            try await Task.sleep(for: .seconds(60))
            return 1
        }
        #expect(slow == nil, "the slow query ran out of patience")
        #expect(try await watch.run(patience: .seconds(60)) { 42 } == 42)
        await #expect(throws: Refused.self) { try await watch.run(patience: .seconds(60)) { () async throws -> Int in throw Refused() } }
        // Many at once, none past its patience: every answer comes back, to its own caller.
        let answers = try await withThrowingTaskGroup(of: Int?.self) { group in
            for i in 0..<200 { group.addTask { try await watch.run(patience: .seconds(60)) { i } } }
            return try await group.reduce(into: [Int]()) { $0.append($1 ?? -1) }
        }
        #expect(answers.sorted() == Array(0..<200))
    }
}

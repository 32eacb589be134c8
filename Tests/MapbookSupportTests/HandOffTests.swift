import Testing
@testable import MapbookSupport

/// The two-stage pipe an import parses through: every batch arrives in order, a producer's
/// failure arrives after what it sent, and a consumer that stops early does not hang.
@Suite struct HandOffTests {
    struct Broken: Error, Equatable { let at: Int }

    @Test func everyBatchArrivesInOrderThroughANarrowPipe() throws {
        let total = try HandOff<Int>.run(depth: 1, produce: { pipe in
            for i in 0..<1000 { #expect(pipe.send([2 * i, 2 * i + 1])) }
        }, consume: { pipe in
            var seen: [Int] = []
            while let batch = try pipe.receive() { seen += batch }
            return seen
        })
        #expect(total == Array(0..<2000))
    }

    @Test func theProducersErrorComesAfterWhatItSent() throws {
        var seen: [Int] = []
        #expect(throws: Broken(at: 3)) {
            try HandOff<Int>.run(produce: { pipe in
                for i in 0..<3 { _ = pipe.send([i]) }
                throw Broken(at: 3)
            }, consume: { pipe in
                while let batch = try pipe.receive() { seen += batch }
            })
        }
        #expect(seen == [0, 1, 2])
    }

    @Test func aConsumerThatFailsStopsTheProducer() throws {
        nonisolated(unsafe) var refused = false
        #expect(throws: Broken(at: 5)) {
            try HandOff<Int>.run(depth: 2, produce: { pipe in
                for i in 0... {
                    guard pipe.send([i]) else {
                        refused = true
                        return
                    }
                }
            }, consume: { pipe in
                while let batch = try pipe.receive() {
                    if batch[0] == 5 { throw Broken(at: 5) }
                }
            })
        }
        #expect(refused)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two stages of one job on two cores: `produce` runs on a thread of its own, sending batches
/// that the calling thread takes with `receive` while it does the second stage (an import
/// parses features on one core while the other writes them). At most `depth` batches wait,
/// so memory stays bounded whichever stage is slower.
///
/// The producer's error reaches the consumer after the batches sent before it; when the
/// consumer stops early (it failed), the producer's next `send` returns false and it ends.
/// The producer thread is joined before `run` returns. A real thread, not a Dispatch work
/// item: on a one-core machine Dispatch may run the two stages one after the other, and a
/// producer waiting for room would then wait for ever.
package final class HandOff<Element>: @unchecked Sendable {
    // Allocated, not stored inline: a class property's address is not guaranteed stable.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Batches sent and not yet received: at most `depth`.
    private var queue: [[Element]] = []
    private var ended = false
    private var failure: (any Error)?
    private var stopped = false
    private let depth: Int

    private init(depth: Int) {
        self.depth = max(1, depth)
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        changed.deallocate()
        lock.deallocate()
    }

    /// Runs `produce` on its own thread and `consume` on this one; returns `consume`'s result
    /// once both have ended. `produce` owns what it captures until then: the caller must not
    /// touch it from `consume`.
    package static func run<Result>(
        depth: Int = 4,
        produce: @escaping (HandOff<Element>) throws -> Void,
        consume: (HandOff<Element>) throws -> Result
    ) throws -> Result {
        let pipe = HandOff(depth: depth)
        nonisolated(unsafe) let work = produce
        let thread = try WorkerThread {
            do {
                try work(pipe)
                pipe.close(nil)
            } catch {
                pipe.close(error)
            }
        }
        defer {
            pipe.stop()
            thread.join()
        }
        return try consume(pipe)
    }

    /// Producer: hands `batch` over, waiting while `depth` batches wait; false when the
    /// consumer has stopped and nothing more is wanted.
    package func send(_ batch: [Element]) -> Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while queue.count >= depth && !stopped { pthread_cond_wait(changed, lock) }
        guard !stopped else { return false }
        queue.append(batch)
        pthread_cond_broadcast(changed)
        return true
    }

    /// Consumer: the next batch, nil after the last; throws the producer's error in its turn.
    package func receive() throws -> [Element]? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while queue.isEmpty && !ended { pthread_cond_wait(changed, lock) }
        if !queue.isEmpty {
            pthread_cond_broadcast(changed)
            return queue.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    private func close(_ error: (any Error)?) {
        pthread_mutex_lock(lock)
        ended = true
        failure = error
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
    }

    private func stop() {
        pthread_mutex_lock(lock)
        stopped = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
    }
}

/// A POSIX thread running one closure, joined by its owner.
private final class WorkerThread {
    private var thread = pthread_t()

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    init(_ body: @escaping () -> Void) throws(HandOffError) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw HandOffError(code: status)
        }
    }

    func join() {
        pthread_join(thread, nil)
    }
}

/// The operating system refused a thread (`pthread_create`'s `code`: EAGAIN when a limit on
/// threads or memory is reached).
package struct HandOffError: Error, Sendable, CustomStringConvertible {
    package let code: Int32
    package var description: String { "cannot start a thread (error \(code)); too many processes or threads are running" }
}

import Dispatch

/// Runs `first` and `second` at the same time, each on its own thread, and returns when both
/// have: two pieces of one job that share nothing.
///
/// The caller promises that the two closures touch disjoint state (no object, buffer or C
/// handle is used by both), which is why non-`Sendable` captures are allowed through: the
/// threads are joined before this returns, so nothing either closure touched is used
/// concurrently afterwards.
package func bothAtOnce(_ first: () -> Void, _ second: () -> Void) {
    withoutActuallyEscaping(first) { first in
        withoutActuallyEscaping(second) { second in
            nonisolated(unsafe) let work = [first, second]
            DispatchQueue.concurrentPerform(iterations: 2) { i in work[i]() }
        }
    }
}

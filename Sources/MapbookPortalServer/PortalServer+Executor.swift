import CMapbookLazy
import NIOCore
import NIOPosix

extension PortalServer {
    /// Runs Swift's tasks on NIO's event loops instead of the runtime's own pool, as NIO's
    /// `unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor` does: a
    /// request's handler then runs on the thread that read it, without a hop to another thread
    /// and back, and a process has one busy thread a core instead of two. On the cluster's list
    /// pages that was 5 to 15% more requests a second and a lower p99 (docs/PERFORMANCE.md).
    ///
    /// NIO's own call finds the runtime's hook with `dlsym`, which a `--static-swift-stdlib`
    /// release cannot answer (the hook is local there); `mapbook_global_executor_hook` names it
    /// at link time instead. `run` installs it (`mapbook portal serve`); the tests that run the
    /// application in their own process leave the runtime's pool as it is. Tasks already queued
    /// finish where they are.
    static func runTasksOnEventLoops() {
        typealias Enqueue = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void
        guard let slot = mapbook_global_executor_hook(), slot.pointee == nil else { return }
        withUnsafeTemporaryAllocation(of: Enqueue.self, capacity: 1) { hook in
            // `any()` is the loop of the thread the job was sent from, when that is one of them.
            hook.baseAddress!.initialize(to: { job, _ in MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(job) })
            hook.baseAddress!.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) { slot.pointee = $0.pointee }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// The temporary files a long command is writing, removed when it is interrupted.
///
/// A build registers the hidden folder it works in beside its output (the feature store, the
/// backdrop, the locator indexes) and each file it makes there itself (an archive under its
/// temporary name), and unregisters it once it is renamed into place or removed. After
/// `removeOnInterrupt()`, SIGINT and SIGTERM remove every registered file (with SQLite's
/// journal files beside it) and folder and end the process with 128 + the signal, as the
/// default action would, so Ctrl-C never leaves a build's leftovers behind.
///
/// The build's threads go on while the files are removed, until the process ends: a
/// GeoPackage's next transaction makes its journal again at once. A folder is therefore
/// emptied until it can be removed itself, after which nothing can be made in it.
///
/// The removal runs on a dispatch queue, not in a signal handler, so it may take the lock.
package enum WorkFiles {
    private static let files = Mutex<Set<String>>([])
    private static let sources = Mutex<[any DispatchSourceSignal]>([])
    private static let interrupted = Atomic<Bool>(false)

    /// Adds `path` to the files removed on interruption.
    package static func register(_ path: String) {
        _ = files.withLock { $0.insert(path) }
    }

    /// Takes `path` off the list: it was renamed into place, or removed.
    package static func unregister(_ path: String) {
        _ = files.withLock { $0.remove(path) }
    }

    /// The files registered now.
    package static var registered: Set<String> { files.withLock { $0 } }

    /// From now on, SIGINT and SIGTERM remove the registered files and end the process.
    /// Calling it again does nothing.
    ///
    /// The corresponding C function is `signal` (the default actions are ignored while
    /// dispatch sources watch for the signals).
    package static func removeOnInterrupt() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for code in [SIGINT, SIGTERM] {
                signal(code, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: code, queue: .global())
                source.setEventHandler {
                    interrupted.store(true, ordering: .sequentiallyConsistent)
                    removeAll()
                    _exit(128 + code)
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// Blocks for good once an interruption is being handled, so that the handler's exit
    /// status (128 + the signal) is the process's. Without it the command, finding its work
    /// files gone under it, would fail and exit 1 first. Call it on every way out of `main`.
    package static func awaitInterruption() {
        guard interrupted.load(ordering: .sequentiallyConsistent) else { return }
        while true { pause() }
    }

    /// Removes every registered file now.
    package static func removeAll() {
        for path in files.withLock({ $0 }) { unlinkWithJournals(path) }
    }

    /// Removes `path`, a folder with all it holds or a file with SQLite's journal files beside
    /// it, and takes it off the list.
    package static func remove(_ path: String) {
        unlinkWithJournals(path)
        unregister(path)
    }

    private static func unlinkWithJournals(_ path: String) {
        if FileSystem.kind(path) == .directory {
            // Emptied again while a thread still at work makes files in it; bounded, so a
            // folder that cannot be removed (permissions) never holds the process.
            for _ in 0..<1_000 {
                FileSystem.removeTree(path)
                guard FileSystem.kind(path) != nil else { return }
            }
            return
        }
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }
}

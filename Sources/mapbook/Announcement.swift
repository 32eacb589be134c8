import Synchronization

/// Something said once, from any thread: `first()` is true the first time only.
final class Announcement: Sendable {
    private let said = Mutex(false)

    func first() -> Bool {
        said.withLock { said in
            defer { said = true }
            return !said
        }
    }
}

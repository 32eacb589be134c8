import Synchronization

/// Set when the client of a request closes its side of the connection before it has the
/// answer (killed, or gone away): work it can never learn of is then not committed.
final class ClientLeft: Sendable {
    private let left = Atomic(false)

    func set() { left.store(true, ordering: .releasing) }

    var isSet: Bool { left.load(ordering: .acquiring) }
}

import MapbookLibrary
import MapbookPackage
import MapbookPortal
import MapbookPortalAPI
import MapbookSupport
import Synchronization

/// What the library screen asks the portal in the background: the update check with the list
/// of the portal's packages, and a download. Tasks write their results here; the screen reads
/// them between keys, so the screen never waits for the network.
final class PortalWork: Sendable {
    struct Progress: Sendable {
        var title: String
        var done: Int64
        var total: Int64?
        var resumed: Bool
    }

    struct State: Sendable {
        var checking = false
        var checkedAt: Int64?
        var statuses: [PackageStatus] = []
        var findings: [String: UpdateCheck.Finding] = [:]
        var available: [PortalItem] = []
        /// Why the portal could not be asked (offline, refused).
        var problem: String?
        var progress: Progress?
        /// Something changed since the screen last looked.
        var changed = false
        /// A download's outcome, to say once.
        var finished: String?
    }

    private let state = Mutex(State())
    private let tasks = Mutex([Task<Void, Never>]())

    func snapshot() -> State { state.withLock { $0 } }

    /// Whether anything changed since the last call, and the message of a finished download.
    func takeChanges() -> (changed: Bool, finished: String?) {
        state.withLock { s in
            defer { s.changed = false; s.finished = nil }
            return (s.changed, s.finished)
        }
    }

    func cancel() {
        tasks.withLock { $0.forEach { $0.cancel() } }
    }

    private func start(_ body: @escaping @Sendable () async -> Void) {
        let task = Task.detached { await body() }
        tasks.withLock { $0.append(task) }
    }

    /// Asks the portal for updates of the downloaded packages and for its packages; keeps the
    /// answer in the library. Offline, says why and keeps what was known.
    func check(portal: String, context: ViewerContext) {
        let started = state.withLock { s -> Bool in
            guard !s.checking else { return false }
            s.checking = true
            s.changed = true
            return true
        }
        guard started else { return }
        let library = context.library, trust = context.trust
        start { [self] in
            do {
                let credential = try library.credential()
                let records = try library.downloads()
                let (statuses, items) = try await PortalClient.with(portalURL: portal, trust: trust, credential: credential, savingTo: library) { client in
                    let statuses = records.isEmpty ? [] : try await client.checkForUpdates(records)
                    let items = try await client.search("type:\"Mobile Map Package\"", maximum: 100).items
                    return (statuses, items)
                }
                let now = MobileMapPackage.now()
                let check = UpdateCheck(statuses, portal: portal, at: now)
                let findings = check.findings
                try? library.saveUpdateCheck(check)
                state.withLock { s in
                    s.checking = false
                    s.checkedAt = now
                    s.statuses = statuses
                    s.findings = findings
                    s.available = items
                    s.problem = nil
                    s.changed = true
                }
            } catch {
                let problem = Self.describe(error)
                state.withLock { s in
                    s.checking = false
                    s.problem = problem
                    s.changed = true
                }
            }
        }
    }

    /// Downloads `item` into the library (resuming what an interrupted download left); false
    /// when a download is already under way.
    func download(_ item: PortalItem, portal: String, context: ViewerContext) -> Bool {
        let started = state.withLock { s -> Bool in
            guard s.progress == nil else { return false }
            s.progress = Progress(title: item.title, done: 0, total: item.size > 0 ? item.size : nil, resumed: false)
            s.changed = true
            return true
        }
        guard started else { return false }
        let library = context.library, trust = context.trust
        start { [self] in
            var finished: String
            var succeeded = false
            do {
                let credential = try library.credential()
                let outcome = try await PortalClient.with(portalURL: portal, trust: trust, credential: credential, savingTo: library) { client in
                    try await PackageDownloader(client: client, library: library).download(item) { p in
                        self.state.withLock { s in
                            s.progress = Progress(title: item.title, done: p.done, total: p.total, resumed: p.resumedFrom > 0)
                            s.changed = true
                        }
                    }
                }
                finished = outcome.summary
                succeeded = true
            } catch {
                finished = "the download of '\(item.title)' stopped: \(Self.describe(error)); press d again to resume"
            }
            state.withLock { s in
                s.progress = nil
                s.finished = finished
                s.changed = true
                // What was downloaded is the item's latest version.
                if succeeded {
                    s.statuses = s.statuses.filter { $0.record.itemId != item.id }
                    s.findings[item.id] = .current
                }
            }
        }
        return true
    }

    /// What went wrong, as the library screen says it: offline, a sign-in to renew, or the
    /// portal's own message.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PortalClientError where error.kind == .unreachable:
            return "offline: the portal cannot be reached"
        case let error as PortalClientError where error.kind == .signInRequired:
            return "the sign-in has expired: run `mapbook portal signin` again"
        default:
            return "the portal could not be asked: \(error)"
        }
    }
}

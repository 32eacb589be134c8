import MapbookData
import MapbookLibrary
import MapbookPortal
import MapbookSupport
import MapbookViewer
import Synchronization

/// Taking the area on screen offline (o), as `mapbook library take-offline` and the Take
/// offline panel of `mapbook serve` do: the portal cuts the package to the area, down to four
/// times the scale shown, and the new package is downloaded into the library. It runs in the
/// background; the map says when it is done.
final class OfflineTask: Sendable {
    private let state = Mutex<(running: Bool, done: String?)>((false, nil))

    /// Starts `body` unless one runs already; its result is the message to show.
    func start(_ body: @escaping @Sendable () async -> String) -> Bool {
        let started = state.withLock { s -> Bool in
            guard !s.running else { return false }
            s.running = true
            return true
        }
        guard started else { return false }
        Task.detached { [self] in
            let text = await body()
            state.withLock { $0 = (false, text) }
        }
        return true
    }

    /// The finished task's message, once.
    func take() -> String? {
        state.withLock { s in
            defer { s.done = nil }
            return s.done
        }
    }
}

extension MapScreen {
    func takeOffline(size: TerminalSize) {
        let packagePath = map.session.package.path
        guard let entry = (try? context.library.list())?.first(where: { $0.path == packagePath && $0.itemId != nil }), let itemId = entry.itemId else {
            message = "only a package downloaded from a portal can be taken offline (mapbook portal download)"
            return
        }
        let area: [Double]
        do {
            let e = try view(size).extent
            let corners = try [(e.minX, e.minY), (e.maxX, e.minY), (e.maxX, e.maxY), (e.minX, e.maxY)].map { x, y in try map.toLongitudeLatitude(Position(x: x, y: y)) }
            // Zoomed out past the world, the view goes beyond it: the area stops at its edges.
            area = [max(corners.map(\.x).min()!, -180), max(corners.map(\.y).min()!, -85.05), min(corners.map(\.x).max()!, 180), min(corners.map(\.y).max()!, 85.05)]
        } catch {
            message = "cannot take this view offline: \(error)"
            return
        }
        let library = context.library, trust = context.trust, maxScale = max(scale / 4, 500)
        let started = offline.start {
            do {
                let outcome = try await PackageDownloader.takeOffline(itemId: itemId, area: area, maxScale: maxScale, library: library, trust: trust)
                return "took this view offline: '\(outcome.record.title)' (\(Format.bytes(outcome.record.size))), in the library"
            } catch {
                return "not taken offline: \(error)"
            }
        }
        message = started ? "taking this view offline on the portal…" : "an area is being taken offline already"
    }

    /// The background task's outcome, on the status line.
    func poll() -> Bool {
        guard let text = offline.take() else { return false }
        message = text
        return true
    }
}

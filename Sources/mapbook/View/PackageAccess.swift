#if canImport(Glibc)
import Glibc
#endif
import MapbookLibrary
import MapbookPackage
import MapbookViewer

/// Opening a package in the viewer, as its expiration says (DESIGN.md 3.1): past its date, a
/// package with `preventExpiredAccess` does not open and says its own message; one with
/// `allowExpiredAccess` opens under a banner with that message.
enum PackageAccess {
    /// Why a package does not open.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// Now, epoch milliseconds.
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// The banner for a package past its date that may still be used; nil before its date or
    /// without one. Throws `Refused` for a package that must not be opened any more.
    static func banner(_ package: MobileMapPackage, now: Int64 = now()) throws(Refused) -> String? {
        guard let expiration = package.manifest.expiration, let when = expiration.dateTime, when <= now else { return nil }
        let title = package.manifest.title ?? package.path
        let date = String(ISODate.format(milliseconds: when).prefix(10))
        let message = expiration.message.map { ": " + $0 } ?? ""
        if expiration.kind == .preventExpiredAccess {
            throw Refused(description: "'\(title)' expired on \(date) and can no longer be opened\(message)")
        }
        return "'\(title)' expired on \(date)\(message)"
    }

    /// The screen a package opens to: its maps, or its map when it has one (or `map` is named).
    static func screen(path: String, map name: String? = nil, context: ViewerContext, size: TerminalSize) throws -> any TerminalScreen {
        let session = try MapSession(path: path, library: context.library)
        let banner = try banner(session.package)
        if session.maps.count == 1 || name != nil {
            return try MapScreen(map: try session.map(named: name), context: context, banner: banner, size: size)
        }
        return MapsScreen(session: session, context: context, banner: banner, current: nil)
    }
}

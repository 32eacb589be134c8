import MapbookLibrary
import MapbookPackage
import MapbookViewer

/// Opening a package in the viewer, as its expiration says (DESIGN.md 3.1): past its date, a
/// package with `preventExpiredAccess` does not open and says its own message; one with
/// `allowExpiredAccess` opens under a banner with that message.
enum PackageAccess {
    /// Now, epoch milliseconds.
    static func now() -> Int64 { MobileMapPackage.now() }

    /// The banner for a package past its date that may still be used; nil before its date or
    /// without one. Throws `PackageExpiredError` for a package that must not be opened any more.
    static func banner(_ package: MobileMapPackage, now: Int64 = now()) throws(PackageExpiredError) -> String? {
        try package.expirationNotice(now: now)
    }

    /// What every command that shows or changes a package's data does first: refuses a package
    /// past its date with `preventExpiredAccess` (`PackageExpiredError`, with its own message),
    /// and prints the message of one with `allowExpiredAccess` once, on stderr.
    static func check(_ package: MobileMapPackage) throws(PackageExpiredError) {
        if let notice = try package.expirationNotice() { Output.error("note: \(notice)") }
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

/// Which packages the device library shows, as in the Offline Mapbook app (DESIGN.md section 7).
///
/// The library is in one mode at a time. Unlike the app, which deletes local packages when
/// it switches to portal mode, sideloaded packages are only hidden there: a field user's
/// hand-copied packages are never lost to a mode switch.
public enum LibraryMode: String, Sendable, CaseIterable {
    /// Sideloaded packages, copied onto the device by hand; no portal, no credential.
    case device
    /// Packages downloaded from one portal, which can be checked for updates.
    case portal
}

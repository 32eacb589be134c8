/// What switching modes or signing out removed from the device library, so the caller can
/// tell the user.
public struct LibraryCleanup: Sendable {
    /// The downloaded packages removed, damaged ones included.
    public var removedPackages: [LibraryEntry] = []
    /// The item ids of unfinished downloads removed.
    public var removedPartialDownloads: [String] = []
    /// The credential removed: who was signed out.
    public var removedCredential: Credential?
    /// Whether the portal's CA certificate, kept since sign-in, was removed.
    public var removedPortalCertificate = false

    public init() {}

    public var isEmpty: Bool { removedPackages.isEmpty && removedPartialDownloads.isEmpty && removedCredential == nil && !removedPortalCertificate }
}

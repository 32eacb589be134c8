import MapbookSupport

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

    /// "Removed 2 downloaded packages: 'A', 'B'" and "Removed 1 unfinished download.", for
    /// what was removed.
    public var removalLines: [String] {
        var lines: [String] = []
        if !removedPackages.isEmpty {
            lines.append("Removed \(Format.count(removedPackages.count, "downloaded package")): \(removedPackages.map { "'\($0.title)'" }.joined(separator: ", "))")
        }
        if !removedPartialDownloads.isEmpty { lines.append("Removed \(Format.count(removedPartialDownloads.count, "unfinished download")).") }
        return lines
    }
}

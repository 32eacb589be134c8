import MapbookLibrary
import MapbookPortalAPI
/// Whether a downloaded package is the portal item's latest version (the update check of
/// the Offline Mapbook app: the item's `modified` against the one recorded at download).
public struct PackageStatus: Sendable {
    public enum State: String, Sendable {
        /// The download is the item's latest version.
        case current
        /// The item was modified after the download.
        case updateAvailable = "update-available"
        /// The item was deleted, or is no longer shared with the user.
        case unavailable
    }

    public var record: DownloadRecord
    public var state: State
    /// The item as the portal describes it now; nil when it is unavailable.
    public var item: PortalItem?
    /// The portal's reason when the item is unavailable.
    public var reason: String?

    public init(record: DownloadRecord, state: State, item: PortalItem?, reason: String? = nil) {
        self.record = record
        self.state = state
        self.item = item
        self.reason = reason
    }

    public var updateAvailable: Bool { state == .updateAvailable }
}

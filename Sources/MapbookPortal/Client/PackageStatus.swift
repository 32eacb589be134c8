import MapbookLibrary
import MapbookPortalAPI
/// Whether a downloaded package is the portal item's latest version (the update check of
/// the Offline Mapbook app: the item's `modified` against the one recorded at download).
public struct PackageStatus: Sendable {
    /// Current, update available, or unavailable: what the library keeps of the last check.
    public typealias State = UpdateCheck.Finding

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

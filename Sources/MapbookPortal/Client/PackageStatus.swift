import MapbookLibrary
import MapbookPackage
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

    /// An update exists, required or not.
    public var updateAvailable: Bool { UpdateCheck.isUpdate(state) }
    /// The portal requires a later version than the one held.
    public var updateRequired: Bool { state == .updateRequired }
}

extension UpdateCheck {
    /// What a check of the portal found, to keep in the device library (the library pages
    /// show its update badges from it).
    public init(_ statuses: [PackageStatus], portal: String, at now: Int64) {
        var findings: [String: UpdateCheck.Finding] = [:]
        for status in statuses { findings[status.record.itemId] = status.state }
        self.init(portalUrl: portal, checkedAt: now, findings: findings)
    }
}

extension DeviceLibrary {
    /// Keeps what a check of the library's portal found, for the library's views (their
    /// update badges); nothing when the library has no portal.
    public func keepUpdateCheck(_ statuses: [PackageStatus]) throws {
        guard let portal = try portalURL() else { return }
        try saveUpdateCheck(UpdateCheck(statuses, portal: portal, at: MobileMapPackage.now()))
    }
}

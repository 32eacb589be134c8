import MapbookLibrary
import MapbookPortalAPI
/// The update check: each downloaded package's item, asked for its `modified`.
extension PortalClient {
    /// The status of each of `records` (DESIGN.md section 7): an update exists when the
    /// item's `modified` is later than `itemModifiedAtDownload`.
    ///
    /// An item the portal no longer gives (deleted, or no longer shared: `Item does not exist
    /// or is inaccessible`, or a refusal) is `unavailable` with the portal's reason. An
    /// unreachable portal or a lost sign-in ends the check with that error.
    public func checkForUpdates(_ records: [DownloadRecord]) async throws -> [PackageStatus] {
        var statuses: [PackageStatus] = []
        for record in records {
            do {
                let item = try await item(record.itemId)
                let state: PackageStatus.State = record.updateAvailable(itemModified: item.modified) ? .updateAvailable : .current
                statuses.append(PackageStatus(record: record, state: state, item: item))
            } catch let error as PortalError where error.code == 400 || error.code == 403 || error.code == 404 {
                statuses.append(PackageStatus(record: record, state: .unavailable, item: nil, reason: error.message))
            }
        }
        return statuses
    }
}

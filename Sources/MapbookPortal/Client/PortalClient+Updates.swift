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
                // The version held goes with the question (`X-Mapbook-Holds`), for the portal's
                // admins; a version they require (`mapbookRequiredModified`) makes the update required.
                let object = try await call(
                    "content/items/\(FormEncoding.percentEncode(record.itemId))", headers: [(Self.holdsHeader, String(record.itemModifiedAtDownload))])
                let item = try PortalItem(json: .object(object), source: "\(restURL)/content/items/\(record.itemId)")
                let required = object.int64("mapbookRequiredModified").map { record.itemModifiedAtDownload < $0 } ?? false
                let state: PackageStatus.State =
                    record.updateAvailable(itemModified: item.modified) ? (required ? .updateRequired : .updateAvailable) : .current
                statuses.append(PackageStatus(record: record, state: state, item: item))
            } catch let error as PortalError where error.code == 400 || error.code == 403 || error.code == 404 {
                statuses.append(PackageStatus(record: record, state: .unavailable, item: nil, reason: error.message))
            }
        }
        return statuses
    }
}

import MapbookLibrary
import MapbookPortalAPI
import MapbookSupport

/// What an update did: the packages fetched again, and every package checked.
public struct UpdateReport: Sendable {
    public var updated: [PackageDownloader.Outcome] = []
    public var checked: [PackageStatus] = []

    public init() {}

    /// As `mapbook portal update --json` prints it.
    public var jsonValue: JSONValue {
        .object(["updated": .array(updated.map(\.jsonValue)), "checked": .array(checked.map(\.jsonValue))])
    }

    /// As `mapbook portal update` prints it.
    public var lines: [String] {
        guard !checked.isEmpty else { return ["No downloaded packages to update."] }
        return updated.map {
            "Updated '\($0.record.title)' (\($0.record.itemId)) to the version of \(ISODate.formatMinutes(milliseconds: $0.record.itemModifiedAtDownload)) UTC (\(Format.bytes($0.record.size)))."
        } + checked.filter { !$0.updateAvailable }.map(\.line)
    }
}

extension PortalClient {
    /// Checks `records` for newer versions and fetches each with `download` (which may show
    /// its progress), one after the other.
    public func update(_ records: [DownloadRecord], download: (PortalItem) async throws -> PackageDownloader.Outcome) async throws -> UpdateReport {
        var report = UpdateReport()
        guard !records.isEmpty else { return report }
        report.checked = try await checkForUpdates(records)
        for status in report.checked where status.updateAvailable {
            guard let item = status.item else { continue }
            report.updated.append(try await download(item))
        }
        return report
    }
}

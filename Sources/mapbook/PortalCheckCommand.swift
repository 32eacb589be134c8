import ArgumentParser
import MapbookPortal
import MapbookSupport

struct PortalCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the downloaded packages for updates on the portal.",
        discussion: """
            For each downloaded package, asks the portal for its item: an update is available \
            when the item was modified after the version downloaded (not the file's date, \
            which copying changes). An item that was deleted or is no longer shared with you \
            is reported as unavailable. Exit status: 0 when the check ran (updates or not), \
            1 on errors, 3 when the portal cannot be reached (offline).
            """)

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print one object per package as JSON.")
    var json = false

    func run() async throws {
        let library = LibraryCommand.library()
        let records = try LibraryCommand.attempt { try library.downloads() }
        let statuses = records.isEmpty ? [] : try await PortalSession.run(library, connection) { client in
            try await client.checkForUpdates(records)
        }
        var out = Output()
        if json {
            out.line(JSONWriter.string(.array(statuses.map(Self.jsonValue))).trimmingTrailingNewline())
        } else if statuses.isEmpty {
            out.line("No downloaded packages to check.")
        } else {
            for status in statuses { out.line(Self.line(status)) }
            let updates = statuses.filter(\.updateAvailable).count
            if updates > 0 { out.line("\(LibraryCommand.count(updates, "update")) available: `mapbook portal update --all` downloads \(updates == 1 ? "it" : "them").") }
        }
        out.flush()
    }

    static func line(_ status: PackageStatus) -> String {
        let record = status.record
        let name = "'\(record.title)' (\(record.itemId))"
        switch status.state {
        case .current:
            return "\(name): up to date (modified \(ISODate.formatMinutes(milliseconds: record.itemModifiedAtDownload)) UTC)"
        case .updateAvailable:
            return "\(name): update available (modified \(ISODate.formatMinutes(milliseconds: status.item?.modified ?? 0)) UTC; you have the version of \(ISODate.formatMinutes(milliseconds: record.itemModifiedAtDownload)) UTC)"
        case .unavailable:
            return "\(name): no longer available on the portal (deleted, or no longer shared with you: \(status.reason ?? "unknown")); the downloaded copy stays until removed"
        }
    }

    static func jsonValue(_ status: PackageStatus) -> JSONValue {
        let record = status.record
        return .object([
            "itemId": .string(record.itemId),
            "title": .string(record.title),
            "status": .string(status.state.rawValue),
            "updateAvailable": .bool(status.updateAvailable),
            "itemModifiedAtDownload": .integer(record.itemModifiedAtDownload),
            "modified": status.item.map { .integer($0.modified) } ?? .null,
            "size": status.item.map { .integer($0.size) } ?? .null,
            "downloadedSize": .integer(record.size),
            "downloadedAt": .integer(record.downloadedAt),
            "reason": status.reason.map(JSONValue.string) ?? .null,
        ])
    }
}

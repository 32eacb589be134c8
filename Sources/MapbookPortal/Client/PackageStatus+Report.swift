import MapbookLibrary
import MapbookSupport

extension PackageStatus {
    /// What `mapbook portal check` prints: a line per package, then how many updates wait.
    public static func checkLines(_ statuses: [PackageStatus]) -> [String] {
        guard !statuses.isEmpty else { return ["No downloaded packages to check."] }
        let updates = statuses.filter(\.updateAvailable).count
        return statuses.map(\.line)
            + (updates > 0 ? ["\(Format.count(updates, "update")) available: `mapbook portal update --all` downloads \(updates == 1 ? "it" : "them")."] : [])
    }

    /// The status as `mapbook portal check` prints it: "'Title' (id): up to date (...)".
    public var line: String {
        let name = "'\(record.title)' (\(record.itemId))"
        switch state {
        case .current:
            return "\(name): up to date (modified \(ISODate.formatMinutes(milliseconds: record.itemModifiedAtDownload)) UTC)"
        case .updateRequired:
            return "\(name): update required by the portal (modified \(ISODate.formatMinutes(milliseconds: item?.modified ?? 0)) UTC; you have the version of \(ISODate.formatMinutes(milliseconds: record.itemModifiedAtDownload)) UTC)"
        case .updateAvailable:
            return "\(name): update available (modified \(ISODate.formatMinutes(milliseconds: item?.modified ?? 0)) UTC; you have the version of \(ISODate.formatMinutes(milliseconds: record.itemModifiedAtDownload)) UTC)"
        case .unavailable:
            return "\(name): no longer available on the portal (deleted, or no longer shared with you: \(reason ?? "unknown")); the downloaded copy stays until removed"
        }
    }

    /// The status as `mapbook portal check --json` prints it.
    public var jsonValue: JSONValue {
        .object([
            "itemId": .string(record.itemId),
            "title": .string(record.title),
            "status": .string(state.rawValue),
            "updateAvailable": .bool(updateAvailable),
            "updateRequired": .bool(updateRequired),
            "itemModifiedAtDownload": .integer(record.itemModifiedAtDownload),
            "modified": item.map { .integer($0.modified) } ?? .null,
            "size": item.map { .integer($0.size) } ?? .null,
            "downloadedSize": .integer(record.size),
            "downloadedAt": .integer(record.downloadedAt),
            "reason": reason.map(JSONValue.string) ?? .null,
        ])
    }
}

extension PackageDownloader.Outcome {
    /// The download as `mapbook portal download --json` prints it: the record, where the
    /// file is, and where an interrupted download resumed.
    public var jsonValue: JSONValue {
        var o = record.jsonValue.objectValue ?? [:]
        o["path"] = .string(entry.path)
        o["resumedFrom"] = .integer(resumedFrom)
        // What the device paid for, and what it got: an update by delta fetches less.
        o["fetchedBytes"] = .integer(fetchedBytes)
        o["fileBytes"] = .integer(record.size)
        o["delta"] = .bool(byDelta)
        o["summary"] = .string(summary)
        return .object(o)
    }

    /// The download as `mapbook portal download` prints it; `verb` says how it came
    /// ("Downloaded", "Took offline").
    public func lines(_ verb: String = "Downloaded") -> [String] {
        [
            "\(verb) '\(record.title)' (\(Format.bytes(record.size)), SHA-256 \(record.sha256.prefix(16))…) to \(entry.path)",
            "  item \(record.itemId) modified \(ISODate.formatMinutes(milliseconds: record.itemModifiedAtDownload)) UTC",
        ]
    }
}

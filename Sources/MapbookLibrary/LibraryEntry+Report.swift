import MapbookSupport

extension LibraryEntry {
    /// The entry as `mapbook library list --json` prints it; dates also as ISO 8601 text.
    public var jsonValue: JSONValue {
        func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        return .object([
            "title": .string(title),
            "kind": .string(kind.rawValue),
            "name": .string(name),
            "path": .string(path),
            "size": .integer(size),
            "itemId": optional(itemId),
            "portalUrl": optional(record?.portalUrl),
            "itemModifiedAtDownload": record.map { .integer($0.itemModifiedAtDownload) } ?? .null,
            "itemModifiedAtDownloadISO": optional(record.map { ISODate.format(milliseconds: $0.itemModifiedAtDownload) }),
            "downloadedAt": record.map { .integer($0.downloadedAt) } ?? .null,
            "downloadedAtISO": optional(record.map { ISODate.format(milliseconds: $0.downloadedAt) }),
            "sha256": optional(record?.sha256),
            "etag": optional(record?.etag),
            "problem": optional(problem),
        ])
    }

    /// The library as `mapbook library list` prints it: the mode and the total, then one row
    /// per package (title, item id or file name, size; for downloads the portal item's date
    /// and when it was downloaded). A damaged entry's title is marked with `!`.
    public static func listLines(_ entries: [LibraryEntry], mode: LibraryMode, portal: String?, root: String) -> [String] {
        let total = entries.reduce(Int64(0)) { $0 + $1.size }
        let kind = mode == .device ? "sideloaded package" : "downloaded package"
        let header = mode == .device ? "Device mode" : "Portal mode, \(portal ?? "no portal")"
        guard !entries.isEmpty else {
            return ["\(header): no \(kind)s in \(root)", mode == .device ? "  add one with `mapbook library add PKG`" : "  download one from the portal"]
        }
        var lines = ["\(header): \(Format.count(entries.count, kind)) (\(Format.bytes(total))) in \(root)"]
        let titles = entries.map { $0.problem == nil ? $0.title : "! " + $0.title }
        let names = entries.map { $0.itemId ?? $0.name }
        let sizes = entries.map { Format.bytes($0.size) }
        let titleWidth = min(titles.map(\.count).max() ?? 0, 40)
        let nameWidth = names.map(\.count).max() ?? 0
        let sizeWidth = sizes.map(\.count).max() ?? 0
        for (i, entry) in entries.enumerated() {
            var line = "  " + Format.pad(titles[i], titleWidth) + "  " + Format.pad(names[i], nameWidth) + "  " + Format.padLeft(sizes[i], sizeWidth)
            if let record = entry.record {
                line += "  modified \(ISODate.format(milliseconds: record.itemModifiedAtDownload))"
                line += ", downloaded \(ISODate.format(milliseconds: record.downloadedAt))"
                if let portal, record.portalUrl != portal { line += " from \(record.portalUrl)" }
            }
            lines.append(line)
        }
        return lines
    }
}

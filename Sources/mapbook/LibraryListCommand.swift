import ArgumentParser
import MapbookPackage
import MapbookPortal
import MapbookLibrary
import MapbookSupport

struct LibraryListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the current mode's packages: sideloaded ones in device mode, downloaded ones in portal mode.",
        discussion: """
            Shows each package's title, file name or item id and size; for downloads, the \
            portal item's modification date when it was downloaded (what update checks compare \
            against). Damaged or foreign files in the library are listed too, with a warning \
            on stderr saying what to do, and the exit status is then 1.
            """)

    @Flag(name: .long, help: "Print the library as JSON.")
    var json = false

    func run() throws {
        let library = LibraryCommand.library()
        let (mode, portal, entries) = try LibraryCommand.attempt { (try library.mode(), try library.portalURL(), try library.list()) }
        var out = Output()
        if json {
            let value: JSONValue = .object([
                "root": .string(library.root),
                "mode": .string(mode.rawValue),
                "portalUrl": portal.map(JSONValue.string) ?? .null,
                "packages": .array(entries.map(Self.json)),
            ])
            out.line(JSONWriter.string(value).trimmingTrailingNewline())
        } else {
            Self.render(entries, mode: mode, portal: portal, root: library.root, into: &out)
        }
        out.flush()
        let problems = entries.filter { $0.problem != nil }
        for entry in problems { Output.error("warning: '\(entry.path)' \(entry.problem ?? "")") }
        if !problems.isEmpty { throw ExitCode.failure }
    }

    static func render(_ entries: [LibraryEntry], mode: LibraryMode, portal: String?, root: String, into out: inout Output) {
        let total = entries.reduce(Int64(0)) { $0 + $1.size }
        let kind = mode == .device ? "sideloaded package" : "downloaded package"
        let header = mode == .device ? "Device mode" : "Portal mode, \(portal ?? "no portal")"
        guard !entries.isEmpty else {
            out.line("\(header): no \(kind)s in \(root)")
            out.line(mode == .device ? "  add one with `mapbook library add PKG`" : "  download one from the portal")
            return
        }
        out.line("\(header): \(LibraryCommand.count(entries.count, kind)) (\(Format.bytes(total))) in \(root)")
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
            out.line(line)
        }
    }

    static func json(_ entry: LibraryEntry) -> JSONValue {
        func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        let record = entry.record
        return .object([
            "title": .string(entry.title),
            "kind": .string(entry.kind.rawValue),
            "name": .string(entry.name),
            "path": .string(entry.path),
            "size": .integer(entry.size),
            "itemId": optional(entry.itemId),
            "portalUrl": optional(record?.portalUrl),
            "itemModifiedAtDownload": record.map { .integer($0.itemModifiedAtDownload) } ?? .null,
            "itemModifiedAtDownloadISO": optional(record.map { ISODate.format(milliseconds: $0.itemModifiedAtDownload) }),
            "downloadedAt": record.map { .integer($0.downloadedAt) } ?? .null,
            "downloadedAtISO": optional(record.map { ISODate.format(milliseconds: $0.downloadedAt) }),
            "sha256": optional(record?.sha256),
            "etag": optional(record?.etag),
            "problem": optional(entry.problem),
        ])
    }
}

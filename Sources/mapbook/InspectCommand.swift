import ArgumentParser
import MapbookPackage
import MapbookInspection
import MapbookSupport

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a package holds: item info, maps, layers, bookmarks, backdrop, locators, entries.",
        discussion: """
            Reads .mmpk packages (ours and Esri's), and standalone .vtpk, .tpkx, .geodatabase, \
            .gpkg and Compact Cache .bundle files or folders, in place. Exits 1 when part of \
            the file could not be read; the rest is still shown.
            """)

    @Argument(help: "The package or file to inspect.")
    var path: String

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    @Flag(name: .long, help: "Leave out the list of entries.")
    var noEntries = false

    func run() throws {
        let report = try PackageInspector.inspect(path: path)
        var out = Output()
        if json {
            out.line(JSONWriter.string(report.jsonValue).trimmingTrailingNewline())
        } else {
            Self.render(report, into: &out, entries: !noEntries)
        }
        out.flush()
        if !report.notes.isEmpty {
            for note in report.notes { Output.error("warning: \(note)") }
            throw ExitCode.failure
        }
    }

    static func render(_ report: InspectionReport, into out: inout Output, entries showEntries: Bool) {
        let item = report.item
        out.line(item?.title ?? report.path)
        var headline = [report.kind]
        if !report.maps.isEmpty { headline.append("\(report.maps.count) map\(report.maps.count == 1 ? "" : "s")") }
        headline.append(Format.bytes(report.fileSize))
        out.line("  " + headline.joined(separator: " · "))
        if let item {
            func field(_ label: String, _ value: String?) {
                guard let value, !value.isEmpty else { return }
                out.line("  " + Format.pad(label + ":", 13) + value)
            }
            field("Summary", item.summary ?? item.snippet)
            field("Name", item.name)
            field("GUID", item.guid)
            field("Version", item.version)
            field("Created", item.created.map { ISODate.format(milliseconds: $0) })
            field("Modified", item.modified.map { ISODate.format(milliseconds: $0) })
            field("Extent", item.extent.map { "\($0) (WGS84)" })
            field("Tags", item.tags.joined(separator: ", "))
            field("Credits", item.credits)
            field("Use limits", item.useLimitations)
            if let e = item.expiration {
                let when = e.dateTime.map { ISODate.format(milliseconds: $0) } ?? "(no date)"
                field("Expires", "\(when), \(e.type ?? "?")" + (e.message.map { ": \($0)" } ?? ""))
            }
            field("Thumbnail", item.hasThumbnail ? "yes" : nil)
            field("Generator", item.generator)
        }

        if !report.maps.isEmpty {
            out.line()
            out.line("Maps")
            for (i, map) in report.maps.enumerated() {
                var heading = "  \(i + 1). \(map.title ?? map.name)  (\(map.entry)"
                if let wkid = map.wkid { heading += ", wkid \(wkid)" }
                out.line(heading + ")")
                if let summary = map.summary, !summary.isEmpty { out.line("     " + summary) }
                if let extent = map.initialExtent { out.line("     Initial extent: \(extent)") }
                let operational = map.layers.filter { !$0.isBasemap }
                if !operational.isEmpty {
                    out.line("     Layers")
                    for layer in operational { out.line("       " + layerLine(layer)) }
                }
                for layer in map.layers where layer.isBasemap {
                    out.line("     Basemap: " + layerLine(layer))
                }
                if !map.bookmarks.isEmpty {
                    out.line("     Bookmarks")
                    for b in map.bookmarks {
                        var line = "       \(b.name)"
                        if let extent = b.extent { line += "  \(extent)" }
                        if let wkid = b.wkid { line += " wkid \(wkid)" }
                        if let scale = b.scale { line += "  1:\(Format.scale(scale))" }
                        out.line(line)
                    }
                }
            }
        }

        if !report.tilePackages.isEmpty {
            out.line()
            out.line("Tiles")
            for tiles in report.tilePackages {
                var heading = "  " + (tiles.entry ?? tiles.name ?? report.path) + "  " + tiles.kind
                if let format = tiles.format { heading += ", \(format)" }
                if let size = tiles.tileSize { heading += ", \(size) px" }
                out.line(heading)
                out.line("    \(tiles.levels.count) levels with tiles (of \(tiles.levelsOfDetail) defined), \(Format.count(tiles.tiles)) tiles, \(Format.bytes(tiles.levels.reduce(0) { $0 + $1.bytes })) of tiles")
                if let extent = tiles.fullExtent {
                    out.line("    Full extent: \(extent)" + (tiles.wkid.map { " wkid \($0)" } ?? ""))
                }
                if !tiles.levels.isEmpty {
                    // Feature counts exist when mapbook's tiler built the package.
                    let counted = tiles.levels.contains { $0.featuresKept != nil }
                    out.line("    " + Format.pad("level", 7) + Format.padLeft("bundles", 8) + Format.padLeft("tiles", 10) + Format.padLeft("bytes", 14) + Format.padLeft("largest", 11)
                        + (counted ? Format.padLeft("kept", 11) + Format.padLeft("dropped", 10) : ""))
                    for level in tiles.levels {
                        var line = "    " + Format.pad("L\(level.level < 10 ? "0" : "")\(level.level)", 7) + Format.padLeft(Format.count(level.bundles), 8)
                            + Format.padLeft(Format.count(level.tiles), 10) + Format.padLeft(Format.count(level.bytes), 14) + Format.padLeft(Format.count(level.largestTile), 11)
                        if counted {
                            line += Format.padLeft(level.featuresKept.map { Format.count($0) } ?? "-", 11) + Format.padLeft(level.featuresDropped.map { Format.count($0) } ?? "-", 10)
                        }
                        out.line(line)
                    }
                }
            }
        }

        if !report.dataFiles.isEmpty {
            out.line()
            out.line("Data")
            for data in report.dataFiles {
                out.line("  \(data.entry)  \(data.kind), \(Format.bytes(data.bytes))")
                for table in data.tables {
                    var line = "    " + Format.pad(table.name, 24) + " " + table.kind
                    if let g = table.geometryType { line += ", \(g)" }
                    if let rows = table.rowCount { line += ", \(Format.count(rows)) rows" }
                    if let id = table.itemId { line += ", itemId \(id)" }
                    if let name = table.layerName, name != table.name { line += " (\(name))" }
                    if let problem = table.problem { line += "  [not readable here: \(problem)]" }
                    out.line(line)
                }
            }
        }

        if !report.locators.isEmpty {
            out.line()
            out.line("Locators")
            for locator in report.locators {
                var line = "  \(locator.path)"
                if let name = locator.name { line += "  \(name)" }
                if let style = locator.style { line += ", \(style)" }
                if let d = locator.description { line += ": \(d)" }
                out.line(line)
                if !locator.participants.isEmpty {
                    out.line("    participants: " + locator.participants.joined(separator: ", "))
                }
                if locator.format == "mapbook", let layer = locator.properties["layer"], let field = locator.properties["field"] {
                    var facts = ["layer \(layer)", "field \(field)"]
                    if let d = locator.properties["displayField"] { facts.append("display \(d)") }
                    if let r = locator.properties["rankField"] { facts.append("rank \(r)") }
                    if locator.properties["role"] == "address" { facts.append("address points") }
                    if let n = locator.properties["count"].flatMap({ Int($0) }) { facts.append("\(Format.count(n)) features") }
                    out.line("    " + facts.joined(separator: ", "))
                }
            }
        }

        if showEntries && !report.entries.isEmpty {
            out.line()
            out.line("Entries")
            for entry in report.entries {
                let method = entry.method == "stored" || entry.method == "file" ? "" : "  (\(entry.method), \(Format.count(entry.compressedSize)) bytes)"
                out.line(Format.padLeft(Format.count(entry.size), 15) + "  " + entry.name + method)
            }
        }
        guard !report.entries.isEmpty else { return }
        out.line()
        out.line("Total: \(Format.count(report.entries.count)) entries, \(Format.count(report.totalEntryBytes)) bytes (\(Format.bytes(report.totalEntryBytes))); file \(Format.count(report.fileSize)) bytes")
    }

    static func layerLine(_ layer: InspectionReport.LayerSummary) -> String {
        let indent = String(repeating: "  ", count: layer.depth)
        var parts = [indent + (layer.visible == false ? "[ ] " : "[x] ") + layer.title]
        if let type = layer.layerType { parts.append(type) }
        if let data = layer.data {
            parts.append(data + (layer.rowCount.map { " (\(Format.count($0)) rows)" } ?? ""))
        } else if let path = layer.path {
            parts.append(path)
        }
        if let renderer = layer.rendererType {
            var r = renderer
            var details: [String] = layer.rendererFields
            if let classes = layer.rendererClasses { details.append("\(classes) classes") }
            if !details.isEmpty { r += " by " + details.joined(separator: ", ") }
            parts.append(r)
        }
        if let opacity = layer.opacity, opacity < 1 { parts.append("opacity \(Format.number(opacity))") }
        if let expression = layer.definitionExpression, !expression.isEmpty { parts.append("where \(expression)") }
        return parts.joined(separator: "  ")
    }
}

import MapbookTiles
import MapbookSupport

extension PackagerSummary {
    /// What `mapbook create` prints after a build.
    public var lines: [String] {
        ["Wrote \(path): \(maps.count) map\(maps.count == 1 ? "" : "s"), \(entries.count) entries, \(Format.count(fileSize)) bytes"]
            + Packager.reportLines(layers: layers, warnings: warnings, classes: classes, backdrop: backdrop, locator: locator, network: network)
            + maps.map { "  \($0.name): \($0.layers) layer\($0.layers == 1 ? "" : "s"), \($0.bookmarks) bookmark\($0.bookmarks == 1 ? "" : "s")" }
            + ["  extent \(extent) (WGS84)"]
    }
}

extension Packager.Plan {
    /// What `mapbook create --dry-run` prints: what would be written to `target`.
    public func lines(title: String, target: String) -> [String] {
        ["\(title): would write \(target), about \(Format.count(estimatedSize)) bytes", "  extent \(extent) (WGS84)"]
            + Packager.reportLines(layers: layers, warnings: warnings, classes: classes, backdrop: backdrop, locator: locator, network: network)
            + mapCounts.map { "  map \($0.name): \($0.layers) layer\($0.layers == 1 ? "" : "s"), \($0.bookmarks) bookmark\($0.bookmarks == 1 ? "" : "s")" }
            + ["  data files:"] + contents.files.map { "    \(contents.folder)/\($0.path)" }
    }
}

extension Packager {
    /// What `mapbook create` prints under its headline, for a build and a dry run alike: one
    /// line per imported source with its warnings, the project's warnings, the features per
    /// renderer class, the backdrop's zooms, the locator and the street network.
    public static func reportLines(
        layers: [ImportedLayer], warnings: [String], classes: [RendererReport], backdrop: TilerReport?, locator: LocatorReport?, network: NetworkReport?
    ) -> [String] {
        var out: [String] = []
        printLayers(layers, to: &out)
        for warning in warnings { out.append("  warning: \(warning)") }
        printClasses(classes, to: &out)
        if let backdrop { printBackdrop(backdrop, to: &out) }
        if let locator { printLocator(locator, to: &out) }
        if let network { printNetwork(network, to: &out) }
        return out
    }

    /// Features per class of each renderer made from a short form, "Other" last.
    private static func printClasses(_ reports: [RendererReport], to out: inout [String]) {
        for report in reports {
            let classes = report.classes.map { "\($0.label): \(Format.count($0.count))" }.joined(separator: ", ")
            out.append("  classes of \(report.layer) (\(report.source).\(report.field)): \(classes)")
        }
    }

    /// The backdrop's per-zoom table: tiles, bytes, largest tile, features kept and dropped.
    private static func printBackdrop(_ report: TilerReport, to out: inout [String]) {
        out.append("  backdrop: zooms \(report.minZoom)-\(report.maxZoom)\(report.maxZoomGuessed ? " (maximum guessed from feature spacing)" : ""), \(Format.count(report.tiles)) tiles, \(Format.count(report.bytes)) bytes")
        for line in report.lines { out.append("    " + line) }
    }

    /// The composite locator, then one line per participant: features indexed, distinct
    /// texts, index and text sizes, and a warning for features search cannot find.
    private static func printLocator(_ report: LocatorReport, to out: inout [String]) {
        let n = report.participants.count
        var line = "  locator \(report.name) (\(report.entry)): \(n) participant\(n == 1 ? "" : "s")"
        if let q = report.qualityQueries {
            line += ", search-quality file of \(q) quer\(q == 1 ? "y" : "ies")"
            if let h1 = report.qualityHitsAt1, let h5 = report.qualityHitsAt5 { line += ": hit@1 \(h1)/\(q), hit@5 \(h5)/\(q)" }
        }
        out.append(line)
        for p in report.participants {
            out.append("    \(p.name) (\(p.source).\(p.field)\(p.isAddress ? ", role address" : "")): \(Format.count(p.entries, "feature")) indexed, \(Format.count(p.groups, "distinct text")), index \(Format.bytes(p.indexBytes)), text \(Format.bytes(Int64(p.textBytes)))")
            if p.skipped > 0 {
                out.append("      warning: \(Format.count(p.skipped)) of \(Format.count(p.features)) features have no searchable text in \(p.field) (empty, or no letter or digit); search cannot find them")
            }
        }
    }

    /// The street network: its size, parts, preprocessing time and bytes.
    private static func printNetwork(_ report: NetworkReport, to out: inout [String]) {
        let parts = report.components == 1 ? "one connected part" : "\(Format.count(report.components)) parts not connected to each other"
        out.append("  network \(report.name) (\(report.entry), from \(report.source)): \(Format.count(report.lines)) lines -> \(Format.count(report.nodes)) nodes, \(Format.count(report.edges)) edges, \(parts)")
        if report.restrictions > 0 {
            out.append("    \(Format.count(report.restrictions)) turn restriction\(report.restrictions == 1 ? "" : "s") -> \(Format.count(report.forbiddenTurns)) forbidden turns")
        }
        let seconds = (report.seconds * 100).rounded() / 100
        let shortcuts = report.shortcuts.map { "\(Format.count($0.count)) shortcuts by \($0.metric == .time ? "time" : "distance")" }.joined(separator: ", ")
        out.append("    preprocessed in \(seconds) s (contraction hierarchies: \(shortcuts)), \(Format.bytes(Int64(report.bytes)))")
    }

    /// One line per imported source, then its warnings, indented.
    private static func printLayers(_ layers: [ImportedLayer], to out: inout [String]) {
        for layer in layers {
            let s = layer.summary
            let type = s.schema.geometryType?.gpkgName ?? "table"
            out.append("  layer \(layer.source) (\(layer.file) -> data.gpkg \(layer.table), \(type)): \(s.kept) kept, \(s.dropped) dropped, \(s.clipped) clipped")
            for line in s.warnings + s.report.lines {
                out.append("    warning: \(line)")
            }
        }
    }
}

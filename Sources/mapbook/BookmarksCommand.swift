import ArgumentParser
import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookViewer

struct BookmarksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookmarks",
        abstract: "A map's bookmarks: named places, each with its centre and scale.",
        discussion: "Every command that takes a view takes --bookmark NAME to look at one.")

    @OptionGroup var options: MapOptions

    @Flag(name: .long, help: "Print the bookmarks as JSON.")
    var json = false

    func run() throws {
        let map = try options.open()
        var out = Output()
        var items: [JSONValue] = []
        if !json { out.line(map.name + (map.bookmarks.isEmpty ? ": no bookmarks" : "")) }
        for (i, bookmark) in map.bookmarks.enumerated() {
            let name = bookmark.name ?? "(unnamed)"
            // At 1024 x 768 and 96 DPI, what --bookmark would show.
            let view = try? map.view(of: bookmark, width: 1024, height: 768)
            let center = view.flatMap { try? map.toLongitudeLatitude($0.center) }
            if json {
                var o: JSONObject = ["name": .string(name)]
                if let view, let center {
                    o["center"] = .array([.double((center.x * 1e6).rounded() / 1e6), .double((center.y * 1e6).rounded() / 1e6)])
                    o["scale"] = .double(view.scale.rounded())
                }
                if let extent = bookmark.effectiveExtent { o["extent"] = extent.jsonValue }
                items.append(.object(o))
            } else {
                var line = "  \(i + 1). \(name)"
                if let view, let center {
                    line += "  \(Format.number((center.x * 1e6).rounded() / 1e6)), \(Format.number((center.y * 1e6).rounded() / 1e6)) at 1:\(Format.scale(view.scale.rounded()))"
                }
                out.line(line)
            }
        }
        if json { out.line(JSONWriter.string(.object(["map": .string(map.name), "bookmarks": .array(items)])).trimmingTrailingNewline()) }
        out.flush()
    }
}

import ArgumentParser
import MapbookData
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
        out.report(json: json, ViewerReport.bookmarks(map), lines: ViewerReport.bookmarkLines(map))
        out.flush()
    }
}

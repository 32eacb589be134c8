import Foundation
import MapbookLibrary
import MapbookRender
import MapbookTestSupport
import MapbookViewer
import Testing

@testable import mapbook

/// The screens of `mapbook view` driven directly, without a terminal: keys handed to the
/// screens, their actions applied to the screen stack as the viewer's loop applies them, and
/// their frames read back as the cells a terminal would show.
@Suite struct ViewScreenObjectsTests {
    static let size: TerminalSize = (columns: 100, rows: 30, width: 0, height: 0)

    /// What a terminal of `columns` x `rows` shows after printing `text` on a blank screen:
    /// cursor moves (CSI H, G) and line feeds followed (a line feed starts the next row at the
    /// first column, as the viewer's terminal settings make it), colours, modes and images
    /// skipped; a character a cell.
    static func cells(_ text: String, columns: Int, rows: Int) -> [[Character]] {
        var grid = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
        var row = 0, column = 0
        var characters = Array(text)[...]
        while let c = characters.popFirst() {
            switch c {
            case "\u{1B}":
                guard let kind = characters.popFirst() else { break }
                if kind == "[" {
                    var parameters = ""
                    while let p = characters.popFirst() {
                        guard let ascii = p.asciiValue, !(0x40...0x7E).contains(ascii) else {
                            let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
                            if p == "H" {
                                row = (numbers.first ?? 1) - 1
                                column = (numbers.count > 1 ? numbers[1] : 1) - 1
                            } else if p == "G" {
                                column = (numbers.first ?? 1) - 1
                            } else if p == "J" {
                                grid = Array(repeating: Array(repeating: Character(" "), count: columns), count: rows)
                            }
                            break
                        }
                        parameters.append(p)
                    }
                } else if kind == "_" || kind == "P" || kind == "]" {
                    // An image or a command, to the string terminator.
                    while let p = characters.popFirst(), !(p == "\u{1B}" && characters.first == "\\") {}
                    _ = characters.popFirst()
                }
            case "\n", "\r\n":
                row += 1
                column = 0
            default:
                if row >= 0, row < rows, column >= 0, column < columns { grid[row][column] = c }
                column += 1
            }
        }
        return grid
    }

    static func lines(_ frame: String, size: TerminalSize = size) -> [String] {
        cells(frame, columns: size.columns, rows: size.rows).map { String($0) }
    }

    static func context(home: String, mode: TerminalPicture.Mode = .colors256) -> ViewerContext {
        ViewerContext(library: DeviceLibrary(root: home), mode: mode, trust: .system)
    }

    /// A package of one map over trees (editable, labelled with their names), stumps (not
    /// editable), a park and a path; returns its path.
    static func treesPackage(in dir: String) throws -> String {
        try writeFile(dir + "/trees.geojson", #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"common":"oak","condition":"Good"},"geometry":{"type":"Point","coordinates":[-122.60,45.50]}},
            {"type":"Feature","properties":{"common":"elm","condition":"Fair"},"geometry":{"type":"Point","coordinates":[-122.61,45.52]}},
            {"type":"Feature","properties":{"common":"ash","condition":"Poor"},"geometry":{"type":"Point","coordinates":[-122.62,45.50]}}]}
            """#)
        try writeFile(dir + "/stumps.geojson", #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"note":"old stump"},"geometry":{"type":"Point","coordinates":[-122.60,45.50]}}]}
            """#)
        try writeFile(dir + "/park.geojson", #"""
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Laurelhurst"},"geometry":{"type":"Polygon",
            "coordinates":[[[-122.628,45.505],[-122.612,45.505],[-122.612,45.525],[-122.628,45.525],[-122.628,45.505]]]}}]}
            """#)
        try writeFile(dir + "/paths.geojson", #"""
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Trail"},"geometry":{"type":"LineString",
            "coordinates":[[-122.63,45.49],[-122.605,45.51],[-122.59,45.53]]}}]}
            """#)
        try writeFile(dir + "/project.yaml", """
            title: Screen Test
            sources:
              trees:
                path: trees.geojson
                title: Street Trees
                edit: { fields: { condition: { domain: [Good, Fair, Poor, Dead] } } }
              stumps: { path: stumps.geojson, title: Stumps }
              park: { path: park.geojson, title: Park }
              paths: { path: paths.geojson, title: Paths }
            maps:
              - name: Trees
                layers:
                  - park
                  - paths
                  - stumps
                  - source: trees
                    labels: [ { field: common } ]
            """)
        let created = try MapbookBinary.run(["create", dir + "/project.yaml", "-o", dir + "/trees.mmpk"])
        guard created.status == 0 else { throw ExternalTools.ToolError(output: created.stderr) }
        return dir + "/trees.mmpk"
    }

    /// The map screen of the first map of the package at `path`, as `mapbook view PKG` opens it.
    static func mapScreen(_ path: String, context: ViewerContext) throws -> MapScreen {
        try MapScreen(map: try MapSession(path: path, library: context.library).map(named: nil), context: context, size: size)
    }

    // MARK: - Esc

    /// Esc on a map of a package of several maps opened by path: its maps, then the library,
    /// which lists the package so that Enter opens it again.
    @Test func escapeFromAMapGoesToItsPackagesMapsThenToTheLibraryThatListsIt() throws {
        try withTemporaryDirectory { dir in
            let context = Self.context(home: dir + "/home")
            let stack = ScreenStack(context: context, first: try Self.mapScreen(try ViewCommandTests.package(in: dir), context: context))
            #expect(stack.apply(stack.top.handle(.escape, size: Self.size)))
            let maps = try #require(stack.top as? MapsScreen, "Esc on the map showed \(type(of: stack.top))")
            #expect(Self.lines(maps.frame(Self.size))[0].contains("Command Test: 2 maps"))
            #expect(maps.selection == 0, "the map shown before is chosen")

            #expect(stack.apply(stack.top.handle(.escape, size: Self.size)))
            let library = try #require(stack.top as? LibraryScreen, "Esc on the maps showed \(type(of: stack.top))")
            let listed = Self.lines(library.frame(Self.size))
            #expect(listed.contains { $0.contains("Opened from its path") }, "\(listed)")
            #expect(listed.contains { $0.trimmingCharacters(in: .whitespaces) == "Command Test" }, "\(listed)")

            #expect(stack.apply(stack.top.handle(.enter, size: Self.size)))
            #expect(stack.top is MapsScreen, "Enter on the package showed \(type(of: stack.top))")
            #expect(stack.apply(stack.top.handle(.enter, size: Self.size)))
            #expect((stack.top as? MapScreen)?.map.name == "Alpha")
        }
    }

    /// A package of one map opened by path: Esc goes to the library, which lists it, and
    /// Enter opens its map again.
    @Test func escapeFromTheOnlyMapGoesToTheLibraryThatListsThePackage() throws {
        try withTemporaryDirectory { dir in
            let context = Self.context(home: dir + "/home")
            let stack = ScreenStack(context: context, first: try Self.mapScreen(try Self.treesPackage(in: dir), context: context))
            #expect(stack.apply(stack.top.handle(.escape, size: Self.size)))
            let library = try #require(stack.top as? LibraryScreen, "Esc on the map showed \(type(of: stack.top))")
            let listed = Self.lines(library.frame(Self.size))
            #expect(listed.contains { $0.contains("No sideloaded packages") }, "the library itself is empty: \(listed)")
            #expect(listed.contains { $0.trimmingCharacters(in: .whitespaces) == "Screen Test" }, "\(listed)")
            #expect(listed.contains { $0.contains("1 map") && $0.contains("KiB") }, "\(listed)")

            #expect(stack.apply(stack.top.handle(.enter, size: Self.size)))
            #expect((stack.top as? MapScreen)?.map.name == "Trees", "Enter on the package showed \(type(of: stack.top))")
        }
    }

    /// A package opened by path that the library holds (a copy of it) is listed once, as the
    /// library's.
    @Test func aPackageInTheLibraryIsNotListedTwice() throws {
        try withTemporaryDirectory { dir in
            let context = Self.context(home: dir + "/home")
            let package = try Self.treesPackage(in: dir)
            let added = try MapbookBinary.run(["library", "add", package], environment: ["MAPBOOK_HOME": dir + "/home"])
            try #require(added.status == 0, "\(added.stderr)")
            let library = LibraryScreen(context: context, opened: [package])
            let listed = Self.lines(library.frame(Self.size))
            #expect(listed.filter { $0.trimmingCharacters(in: .whitespaces) == "Screen Test" }.count == 1, "\(listed)")
            #expect(!listed.contains { $0.contains("Opened from its path") }, "\(listed)")
        }
    }

    // MARK: - Pop-ups

    /// The pop-up of an editable layer's feature offers e and x; one of a layer without an
    /// edit schema does not, and its e says why.
    @Test func popUpsOfferEditAndDeleteOnlyOnEditableLayers() throws {
        try withTemporaryDirectory { dir in
            let screen = try Self.mapScreen(try Self.treesPackage(in: dir), context: Self.context(home: dir + "/home"))
            func footer(_ title: String) throws -> String {
                let layer = try #require(screen.map.layers.first { $0.title == title })
                let popup = try #require(try screen.map.popup(layer: layer, featureID: 1)?.popup)
                screen.panel = .popups([popup], index: 0, top: 0)
                let lines = Self.lines(screen.frame(Self.size))
                return lines[lines.count - 2]
            }
            let trees = try footer("Street Trees")
            #expect(trees.contains("e edit · x delete · Esc close"), "\(trees)")
            let stumps = try footer("Stumps")
            #expect(stumps.contains("Esc close") && !stumps.contains("e edit") && !stumps.contains("x delete"), "\(stumps)")
            _ = screen.handle(.character("e"), size: Self.size)
            #expect(Self.lines(screen.frame(Self.size)).last?.contains("'Stumps' is not editable") == true)
        }
    }

    // MARK: - Keys

    /// Every key's description whole on a wide terminal (the longest passes 160 columns); on
    /// a narrow one, wrapped within its width, and what does not fit is reached with ↓.
    @Test(arguments: [(columns: 160, rows: 60), (columns: 200, rows: 60), (columns: 50, rows: 24)])
    func theKeysWrapToTheTerminalsWidth(columns: Int, rows: Int) {
        let size: TerminalSize = (columns, rows, 0, 0)
        let help = HelpScreen(returning: "the map")
        var seen: [String] = []
        var previous: [String] = []
        for _ in 0..<40 {
            let lines = Self.lines(help.frame(size), size: size)
            if lines == previous { break }
            seen += lines.dropLast()
            previous = lines
            guard case .redraw = help.handle(.down, size: size) else { break }
        }
        let text = seen.joined(separator: " ").split(separator: " ").joined(separator: " ")
        for section in HelpScreen.sections {
            for (_, what) in section.keys {
                #expect(text.contains(what.split(separator: " ").joined(separator: " ")), "\(columns) columns: '\(what)' is not whole")
            }
        }
        #expect(HelpScreen.lines(width: columns).allSatisfy { $0.text.count <= columns })
    }

    // MARK: - NO_COLOR

    /// Without colour, the map is not a silhouette: the park's fill is shaded, the path and
    /// the trees are shapes, the background is blank, and no colour is sent.
    @Test func withoutColourTheMapIsDrawnInShapesAndShades() throws {
        try withTemporaryDirectory { dir in
            let screen = try Self.mapScreen(try Self.treesPackage(in: dir), context: Self.context(home: dir + "/home", mode: .noColor))
            let frame = screen.frame(Self.size)
            #expect(!frame.contains("38;5;") && !frame.contains("38;2;") && !frame.contains("48;"), "colour sent under NO_COLOR")
            let map = Self.cells(frame, columns: Self.size.columns, rows: Self.size.rows).dropLast().joined()
            func count(_ kind: (Character) -> Bool) -> Int { map.filter(kind).count }
            let blank = count { $0 == " " }
            let solid = count { $0 == "█" }
            let shaded = count { "░▒▓".contains($0) }
            let shapes = count { c in c.unicodeScalars.first.map { (0x1FB00...0x1FB3B).contains($0.value) || "▌▐·".unicodeScalars.contains($0) } ?? false }
            #expect(blank > map.count / 2, "the background is blank: \(blank) of \(map.count)")
            #expect(solid < map.count / 20, "a silhouette: \(solid) solid cells of \(map.count)")
            #expect(shaded > 50, "the park is shaded: \(shaded) cells")
            #expect(shapes > 20, "the path and the trees are shapes: \(shapes) cells")
        }
    }

    // MARK: - Labels

    /// Drawn as symbols, the trees' names are text on the map's cells; drawn as an image
    /// (kitty), they are in its pixels.
    @Test func labelsAreTextOverAPictureOfSymbols() throws {
        try withTemporaryDirectory { dir in
            let package = try Self.treesPackage(in: dir)
            for mode in [TerminalPicture.Mode.colors256, .noColor, .trueColor] {
                let screen = try Self.mapScreen(package, context: Self.context(home: dir + "/home", mode: mode))
                let lines = Self.lines(screen.frame(Self.size))
                for name in ["oak", "elm", "ash"] {
                    #expect(lines.dropLast().contains { $0.contains(name) }, "\(mode): no '\(name)' on the map: \(lines.joined(separator: "\n"))")
                }
            }
            let kitty = try Self.mapScreen(package, context: Self.context(home: dir + "/home", mode: .kitty))
            #expect(!Self.lines(kitty.frame(Self.size)).dropLast().contains { $0.contains("elm") })
        }
    }
}

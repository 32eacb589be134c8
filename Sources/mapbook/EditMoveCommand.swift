import ArgumentParser
import MapbookData

struct EditMoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "move", abstract: "Give a feature a new place or shape.")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A point, in WGS84.", valueName: "LON,LAT"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("The geometry as WKT, in WGS84.", valueName: "WKT"))
    var geometry: String?

    func validate() throws {
        guard (at == nil) != (geometry == nil) else { throw ValidationError("give --at or --geometry") }
    }

    func run() throws {
        let shape = try EditCommand.geometry(at: at, wkt: geometry)
        try EditCommand.perform(options, place: shape) { copy, table in
            try copy.update(layer: table, fid: id, geometry: shape, values: [], user: EditCommand.user, now: EditCommand.now)
        }
    }
}

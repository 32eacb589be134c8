import ArgumentParser
import MapbookData

struct EditAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a feature: its place and its fields (defaults fill the rest).")

    @OptionGroup var options: EditLayerOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("A point, in WGS84.", valueName: "LON,LAT"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("The geometry as WKT, in WGS84.", valueName: "WKT"))
    var geometry: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("A field's value (repeat for more).", valueName: "FIELD=VALUE"))
    var sets: [String] = []

    func validate() throws {
        guard at == nil || geometry == nil else { throw ValidationError("give --at or --geometry, not both") }
    }

    func run() throws {
        let values = try EditCommand.assignments(sets)
        let shape = try EditCommand.geometry(at: at, wkt: geometry)
        try EditCommand.perform(options, place: shape) { copy, table in
            try copy.add(layer: table, geometry: shape, values: values, user: EditCommand.user, now: EditCommand.now)
        }
    }
}

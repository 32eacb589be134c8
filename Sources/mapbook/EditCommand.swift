import ArgumentParser
import MapbookData
import MapbookEditing
import MapbookPackage
import MapbookViewer

/// `mapbook edit`: field edits on a package's working copy (issue 19; docs/LIBRARY.md).
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Add, change and delete features of a package's editable layers, offline.",
        discussion: """
            Edits go to the package's working copy in the device library (edits/<GUID>/data.gpkg); \
            the package file stays as published. Values are checked against the layer's types, \
            domains (a code or its name), ranges and required and read-only fields before \
            anything is written; a refused edit names the field, the value and what is allowed, \
            and changes nothing (exit status 1). Each edit is recorded as a changeset for sync.
            """,
        subcommands: [
            EditAddCommand.self, EditUpdateCommand.self, EditMoveCommand.self, EditDeleteCommand.self, EditAttachCommand.self, EditRelateCommand.self,
            EditListCommand.self, EditDiscardCommand.self,
        ])

    /// The package, its working copy and the user the tracking fields name.
    static func open(_ path: String, forSync: Bool = false) throws -> (MobileMapPackage, WorkingCopy) {
        try LibraryCommand.attempt {
            let package = try LibraryCommand.library().verifiedFiles.open(path)
            return (package, try DeviceEdits.workingCopy(of: package, library: LibraryCommand.library(), forSync: forSync))
        }
    }

    /// `FIELD=VALUE` pairs.
    static func assignments(_ sets: [String]) throws -> [(field: String, text: String)] {
        try sets.map { set in
            guard let equals = set.firstIndex(of: "="), equals != set.startIndex else {
                Output.error("error: --set '\(set)' is not FIELD=VALUE")
                throw ExitCode(64)
            }
            return (String(set[..<equals]), String(set[set.index(after: equals)...]))
        }
    }

    /// `--at LON,LAT` as a point, or `--geometry WKT` (WGS84).
    static func geometry(at: String?, wkt: String?) throws -> Geometry? {
        if let at {
            guard let p = LonLat(argument: at) else {
                Output.error("error: --at '\(at)': \(LonLat.problem(at) ?? "not LON,LAT")")
                throw ExitCode(64)
            }
            return Geometry(.point(Position(x: p.longitude, y: p.latitude)), hasZ: false, hasM: false)
        }
        if let wkt {
            do { return try WKT.parse(wkt) } catch {
                Output.error("error: --geometry is not WKT: \(error)")
                throw ExitCode(64)
            }
        }
        return nil
    }

    /// Who the tracking fields name: the signed-in portal user, else the login name.
    static var user: String { DeviceEdits.user(library: LibraryCommand.library()) }

    static var now: Int64 { DeviceEdits.now() }

    /// Opens the package's working copy, finds the layer and prints the edit `body` makes.
    ///
    /// Nothing is written until an edit is accepted: the layer is checked in the package
    /// itself first, and a working copy made for an edit that is then refused is removed.
    static func perform(_ options: EditLayerOptions, place: Geometry? = nil, _ body: (WorkingCopy, String) throws -> WorkingCopy.Change) throws {
        try LibraryCommand.attempt {
            let package = try LibraryCommand.library().verifiedFiles.open(options.path)
            try PackageAccess.check(package)
            report(try DeviceEdits.edit(package, layer: options.layer, place: place, library: LibraryCommand.library(), body))
        }
    }

    static func report(_ change: WorkingCopy.Change) {
        print("\(change.operation.rawValue) \(change.layer) \(change.fid) \(change.globalid) (edit \(change.id), \(change.changeset.count) bytes of changeset)")
    }
}

struct EditLayerOptions: ParsableArguments {
    @Argument(help: "The package (.mmpk).")
    var path: String

    @Option(name: .long, help: ArgumentHelp("The layer: its table or its title in a map.", valueName: "LAYER"))
    var layer: String
}

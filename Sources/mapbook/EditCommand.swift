#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import MapbookData
import MapbookEditing
import MapbookLibrary
import MapbookPackage
import MapbookSupport

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
            let package = try MobileMapPackage(path: path)
            guard let guid = package.manifest.guid else {
                throw EditError(kind: .notEditable, layer: "", field: "", message: "\(path) has no GUID in its manifest, so its edits cannot be kept; build it again with mapbook create")
            }
            let folder = try LibraryCommand.library().editsFolder(packageGUID: guid)
            return (package, try WorkingCopy(package: package, folder: folder, forSync: forSync))
        }
    }

    /// A layer named by its table or its title in any of the package's maps.
    static func table(_ name: String, in package: MobileMapPackage) throws -> String {
        var titles: [String: String] = [:]
        for entry in package.mapEntries {
            guard let map = try? package.map(entry) else { continue }
            for layer in (map.map.operationalLayers ?? []) + (map.map.tables ?? []) {
                guard let table = layer.path.flatMap(LayerDataPath.init)?.table else { continue }
                titles[table.lowercased()] = table
                if let title = layer.title { titles[title.lowercased()] = table }
            }
        }
        // Tables no map shows but that are editable (a layer's attachments) by their name.
        if titles[name.lowercased()] == nil, let entry = package.dataEntry,
            let data = try? package.database(entry), let editable = try? EditSchema.editableTables(data)
        {
            for table in editable { titles[table.lowercased()] = table }
        }
        guard let table = titles[name.lowercased()] else {
            throw EditError(kind: .notEditable, layer: name, field: "", message: "is not a layer of \(package.path); its layers are: \(Set(titles.values).sorted().joined(separator: ", "))")
        }
        return table
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
    static var user: String {
        if let credential = try? LibraryCommand.library().credential() { return credential.username }
        for key in ["USER", "LOGNAME"] { if let v = getenv(key) { return String(cString: v) } }
        return "unknown"
    }

    static var now: Int64 { Int64(time(nil)) }

    /// Opens the package's working copy, finds the layer and prints the edit `body` makes.
    ///
    /// Nothing is written until an edit is accepted: the layer is checked in the package
    /// itself first, and a working copy made for an edit that is then refused is removed.
    static func perform(_ options: EditLayerOptions, place: Geometry? = nil, _ body: (WorkingCopy, String) throws -> WorkingCopy.Change) throws {
        let (package, table) = try LibraryCommand.attempt { () throws -> (MobileMapPackage, String) in
            let package = try MobileMapPackage(path: options.path)
            try PackageAccess.check(package)
            let table = try Self.table(options.layer, in: package)
            try WorkingCopy.checkEditable(package: package, layer: table)
            if let place { try checkInside(place, package: package, layer: table) }
            return (package, table)
        }
        let library = try LibraryCommand.attempt { try LibraryCommand.library() }
        let guid = package.manifest.guid ?? ""
        let hadCopy = library.hasEditsFolder(packageGUID: guid)
        let (_, copy) = try open(options.path)
        do {
            try LibraryCommand.attempt { report(try body(copy, table)) }
        } catch {
            if !hadCopy, let folder = try? library.editsFolder(packageGUID: guid) { _ = try? WorkingCopy.discard(folder: folder) }
            throw error
        }
    }

    /// Refuses a place outside the package's extent (WGS84), widened by half its size on each
    /// side (what a map opened on the whole package shows around its data, where a new
    /// feature beside the last one is still expected): a typo, swapped or unsigned degrees.
    static func checkInside(_ place: Geometry, package: MobileMapPackage, layer: String) throws {
        guard let extent = try package.itemInfo()?.extent, let envelope = place.envelope else { return }
        let dx = (extent.maxX - extent.minX) / 2, dy = (extent.maxY - extent.minY) / 2
        guard envelope.minX >= extent.minX - dx, envelope.maxX <= extent.maxX + dx, envelope.minY >= extent.minY - dy, envelope.maxY <= extent.maxY + dy else {
            throw EditError(kind: .outsideExtent, layer: layer, field: "", message: "the place \(envelope.minX),\(envelope.minY) is outside the package's extent \(extent) (LON,LAT in WGS84; check the order and the signs)")
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

struct EditUpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "update", abstract: "Change fields of a feature.")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    @Option(name: .customLong("set"), help: ArgumentHelp("A field's value; empty to empty it (repeat for more).", valueName: "FIELD=VALUE"))
    var sets: [String] = []

    func validate() throws {
        guard !sets.isEmpty else { throw ValidationError("give at least one --set FIELD=VALUE") }
    }

    func run() throws {
        let values = try EditCommand.assignments(sets)
        try EditCommand.perform(options) { copy, table in
            try copy.update(layer: table, fid: id, values: values, user: EditCommand.user, now: EditCommand.now)
        }
    }
}

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

struct EditDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a feature.")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    func run() throws {
        try EditCommand.perform(options) { copy, table in
            try copy.delete(layer: table, fid: id, now: EditCommand.now)
        }
    }
}

struct EditListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edits", abstract: "List the edits not yet synchronised, oldest first.")

    @Argument(help: "The package (.mmpk).")
    var path: String

    @Flag(name: .long, help: "Print them as JSON.")
    var json = false

    func run() throws {
        let (_, copy) = try EditCommand.open(path)
        let pending = try LibraryCommand.attempt { try copy.pending() }
        if json {
            let items: [JSONValue] = pending.map { c in
                .object([
                    "id": .integer(c.id), "layer": .string(c.layer), "operation": .string(c.operation.rawValue), "fid": .integer(c.fid),
                    "globalid": .string(c.globalid), "time": .string(ISODate.format(seconds: c.time)), "changesetBytes": .integer(Int64(c.changeset.count)),
                ])
            }
            print(JSONWriter.string(.array(items), style: .pretty))
            return
        }
        if pending.isEmpty { print("No pending edits.") }
        for c in pending {
            print("\(c.id). \(ISODate.format(seconds: c.time)) \(c.operation.rawValue) \(c.layer) \(c.fid) \(c.globalid)")
        }
    }
}

struct EditDiscardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "discard", abstract: "Throw away the working copy and every edit not yet synchronised.")

    @Argument(help: "The package (.mmpk).")
    var path: String

    func run() throws {
        let count = try LibraryCommand.attempt { () throws -> Int in
            guard let guid = try MobileMapPackage(path: path).manifest.guid else { return 0 }
            return try WorkingCopy.discard(folder: try LibraryCommand.library().editsFolder(packageGUID: guid))
        }
        print("Discarded \(LibraryCommand.count(count, "edit")); the package's own data shows again.")
    }
}

struct EditAttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach", abstract: "Attach a file (a photo, a PDF) to a feature.",
        discussion: "The file is copied into the working copy; a sync sends it once, by its SHA-256. Refused above the layer's size limit (10 MB unless the project says).")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    @Argument(help: "The file to attach.")
    var file: String

    @Option(name: .long, help: "Its MIME type (default: from the file name's extension).")
    var contentType: String?

    func run() throws {
        let bytes = try LibraryCommand.attempt { () throws -> [UInt8] in
            let handle = try RandomAccessFile(path: file)
            guard handle.size <= 1 << 30 else { throw EditError(kind: .tooLarge, layer: options.layer, field: "", message: "'\(file)' is larger than 1 GB") }
            return try handle.read(at: 0, count: Int(handle.size))
        }
        let name = LibraryCommand.fileName(file)
        try EditCommand.perform(options) { copy, table in
            try copy.attach(layer: table, fid: id, bytes: bytes, name: name, contentType: contentType ?? WorkingCopy.contentType(forName: name), now: EditCommand.now)
        }
    }
}

struct EditRelateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relate", abstract: "Add a related record (an inspection of a tree) to a feature.",
        discussion: "The record's fields are checked against the related table's rules, as `add` checks a feature's; its key is set to the feature's globalid.")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    @Option(name: .long, help: "The related table.")
    var table: String

    @Option(name: .customLong("set"), help: ArgumentHelp("A field's value (repeat for more).", valueName: "FIELD=VALUE"))
    var sets: [String] = []

    func run() throws {
        let values = try EditCommand.assignments(sets)
        try EditCommand.perform(options) { copy, layer in
            try copy.relate(layer: layer, fid: id, related: table, values: values, user: EditCommand.user, now: EditCommand.now)
        }
    }
}

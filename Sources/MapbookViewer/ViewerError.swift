import MapbookPackage

/// Why the viewer cannot do what was asked: a name that matches nothing (with the choices),
/// a view that is not one, or a package it cannot read. Commands map `isUsage` to exit 64.
public struct ViewerError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No map of that name; `choices` lists the maps.
        case unknownMap
        /// No layer of that id or title in the map; `choices` lists them.
        case unknownLayer
        /// No bookmark of that name in the map; `choices` lists them.
        case unknownBookmark
        /// A view that cannot be drawn or queried: a size past the limit, a scale that is not
        /// positive, a bounding box that is not a box, a point off the map's projection.
        case invalidView
        /// A place that is not `LON,LAT` on the earth, or text the locator does not find.
        case unknownPlace
        /// The package has no map at all.
        case noMaps
        /// A search was asked of a package that has no locator.
        case noLocator
        /// A layer's data is not in the package, or its geometry format is not public.
        case unreadableLayer
        /// The package (or one of its entries) cannot be read; `PackageFormatError`'s kind.
        case package(PackageFormatError.Kind)
    }

    public var kind: Kind
    /// The package, or the entry inside it, the error is about.
    public var path: String
    public var message: String
    /// The names that would have matched, for unknown-name errors.
    public var choices: [String]

    public init(kind: Kind, path: String, message: String, choices: [String] = []) {
        self.kind = kind
        self.path = path
        self.message = message
        self.choices = choices
    }

    /// A package that cannot be read, as the package reader said.
    public init(_ error: PackageFormatError) {
        self.init(kind: .package(error.kind), path: error.path, message: error.message)
    }

    /// Whether the request itself is wrong (a usage error) rather than the package.
    public var isUsage: Bool {
        switch kind {
        case .unknownMap, .unknownLayer, .unknownBookmark, .invalidView, .noLocator: return true
        case .unknownPlace, .noMaps, .unreadableLayer, .package: return false
        }
    }

    public var description: String {
        var text = path.isEmpty ? message : "'\(path)': \(message)"
        if !choices.isEmpty { text += "; choose one of: " + choices.map { "'\($0)'" }.joined(separator: ", ") }
        return text
    }
}

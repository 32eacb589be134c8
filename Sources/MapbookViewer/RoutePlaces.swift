import MapbookLibrary
import MapbookPackage
import MapbookRouting
import MapbookSearch
import MapbookSupport

/// The places a route goes through, as people name them: `LON,LAT`, or text that the
/// package's locator finds (its first hit, nearest the package's centre).
public enum RoutePlaces {
    /// Each text as a place with the label directions print: the text for `LON,LAT`, the
    /// hit's label for text. The locator is opened (with this device's edits) only when a
    /// text needs it.
    public static func resolve(_ texts: [String], package: MobileMapPackage, library: DeviceLibrary) throws -> [(label: String, node: StreetNetwork.Node)] {
        var places: [(label: String, node: StreetNetwork.Node)] = []
        var locator: CompositeLocator?
        var locatorOpened = false
        let center = package.manifest.extent.map { ($0.center.x, $0.center.y) }
        for text in texts {
            if let problem = LonLat.problem(text) {
                throw ViewerError(kind: .unknownPlace, path: "", message: "'\(text)' is not a place: \(problem)")
            }
            if let lonLat = LonLat(argument: text) {
                places.append((text, StreetNetwork.Node(lon: lonLat.longitude, lat: lonLat.latitude)))
                continue
            }
            if !locatorOpened {
                locator = try EditedLocator.open(package, library: library)
                locatorOpened = true
            }
            guard let locator else {
                throw ViewerError(kind: .unknownPlace, path: "", message: "'\(text)' is not LON,LAT, and '\(package.path)' has no locator to search it with")
            }
            guard let hit = try locator.geocode(text, near: center, max: 1).first, let lon = hit.longitude, let lat = hit.latitude else {
                throw ViewerError(kind: .unknownPlace, path: "", message: "no place found for '\(text)'")
            }
            places.append((hit.label, StreetNetwork.Node(lon: lon, lat: lat)))
        }
        return places
    }
}

import MapbookData
import MapbookSupport

/// Reads the spatial references a feature service's parameters give (`inSR`, `outSR`, a
/// geometry's `spatialReference`): a well-known id (`4326`, `102100`) or JSON with `wkid`,
/// `latestWkid` or `wkt`. Esri's ids for Web Mercator (102100, 102113) are EPSG 3857.
public enum ServiceSpatialReference {
    public static func parse(_ text: String, parameter: String) throws(FeatureServiceError) -> CoordinateReferenceSystem {
        let trimmed = text.trimming(" \t\r\n")
        var crs: CoordinateReferenceSystem?
        if let wkid = Int(trimmed) {
            crs = reference(wkid: wkid)
        } else if trimmed.hasPrefix("{"), let o = (try? JSONParser.parse(Array(trimmed.utf8)))?.objectValue {
            if let wkid = o["latestWkid"]?.int64Value ?? o["wkid"]?.int64Value {
                crs = reference(wkid: Int(wkid))
            } else if let wkt = o.string("wkt") {
                crs = CoordinateReferenceSystem(wkt: wkt)
            }
        }
        guard let crs else {
            throw FeatureServiceError(.badSpatialReference, parameter: parameter, "'\(trimmed)' is not a spatial reference; give a wkid (4326, 102100) or JSON with wkid or wkt")
        }
        if let problem = CoordinateTransform.isKnown(crs) {
            throw FeatureServiceError(.badSpatialReference, parameter: parameter, "\(trimmed) cannot be used: \(problem)")
        }
        return crs
    }

    static func reference(wkid: Int) -> CoordinateReferenceSystem? {
        guard wkid > 0 else { return nil }
        return [102100, 102113, 900913, 3785].contains(wkid) ? .webMercator : CoordinateReferenceSystem(epsg: wkid)
    }
}

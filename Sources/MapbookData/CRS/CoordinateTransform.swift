import CProj
import MapbookSupport

#if canImport(Glibc)
import Glibc
#endif

/// Reprojects positions from one coordinate system to another with PROJ, in
/// longitude-latitude / easting-northing axis order whatever the CRS's official order.
///
/// WGS 84 to Web Mercator takes a direct path (`WebMercator`: the spherical formulas, latitudes
/// clamped to ±85.0511°, the limit of the square Web Mercator world); every other pair goes through PROJ.
/// Not Sendable: a PROJ context belongs to one thread.
public final class CoordinateTransform {
    public let source: CoordinateReferenceSystem
    public let target: CoordinateReferenceSystem
    private var context: OpaquePointer?
    private var transform: OpaquePointer?
    private let kind: Kind
    /// Whether the source is geographic (degrees): latitudes are clamped before Mercator and
    /// lines crossing the antimeridian can be recognised.
    public let sourceIsGeographic: Bool

    private enum Kind { case identity, wgs84ToWebMercator, webMercatorToWGS84, proj }

    /// The latitude limit of Web Mercator: the square world of tile schemes.
    public static let mercatorMaxLatitude = WebMercator.maxLatitude

    /// Creates a transform, or throws when PROJ does not know one of the systems.
    ///
    /// The corresponding C functions are `proj_context_create`, `proj_create_crs_to_crs` and
    /// `proj_normalize_for_visualization`.
    public init(from source: CoordinateReferenceSystem, to target: CoordinateReferenceSystem) throws(CRSError) {
        self.source = source
        self.target = target
        if source == target || (source.isWGS84 && target.isWGS84) || (source.isWebMercator && target.isWebMercator) {
            kind = .identity
            sourceIsGeographic = source.isWGS84
            return
        }
        if source.isWGS84 && target.isWebMercator {
            kind = .wgs84ToWebMercator
            sourceIsGeographic = true
            return
        }
        if source.isWebMercator && target.isWGS84 {
            kind = .webMercatorToWGS84
            sourceIsGeographic = false
            return
        }
        kind = .proj
        context = proj_context_create()
        // Never reach for the network (PROJ grids online): the machine may be offline.
        proj_context_set_enable_network(context, 0)
        proj_log_level(context, PJ_LOG_NONE)
        let sourceCRS = proj_create(context, source.projDefinition)
        guard let sourceCRS else {
            let message = Self.lastError(context)
            proj_context_destroy(context)
            throw CRSError(kind: .unknownCRS, crs: source.description, message: "PROJ does not know this coordinate system (\(message))")
        }
        defer { proj_destroy(sourceCRS) }
        sourceIsGeographic = Self.isGeographic(sourceCRS)
        guard let targetCRS = proj_create(context, target.projDefinition) else {
            let message = Self.lastError(context)
            proj_context_destroy(context)
            throw CRSError(kind: .unknownCRS, crs: target.description, message: "PROJ does not know this coordinate system (\(message))")
        }
        defer { proj_destroy(targetCRS) }
        guard let raw = proj_create_crs_to_crs_from_pj(context, sourceCRS, targetCRS, nil, nil) else {
            let message = Self.lastError(context)
            proj_context_destroy(context)
            throw CRSError(kind: .noTransformation, crs: source.description, message: "no transformation to \(target) (\(message))")
        }
        transform = proj_normalize_for_visualization(context, raw)
        proj_destroy(raw)
        if transform == nil {
            proj_context_destroy(context)
            throw CRSError(kind: .noTransformation, crs: source.description, message: "no transformation to \(target)")
        }
    }

    deinit {
        if let transform { proj_destroy(transform) }
        if let context { proj_context_destroy(context) }
    }

    public var isIdentity: Bool { kind == .identity }

    /// Reprojects one position; nil when it has no image (outside the projection's domain).
    public func apply(_ p: Position) -> Position? {
        switch kind {
        case .identity:
            return p
        case .wgs84ToWebMercator:
            guard p.x.isFinite, p.y.isFinite, abs(p.y) <= 90 else { return nil }
            let (x, y) = WebMercator.project(longitude: p.x, latitude: p.y)
            return Position(x: x, y: y, z: p.z, m: p.m)
        case .webMercatorToWGS84:
            guard p.x.isFinite, p.y.isFinite else { return nil }
            let (longitude, latitude) = WebMercator.unproject(x: p.x, y: p.y)
            return Position(x: longitude, y: latitude, z: p.z, m: p.m)
        case .proj:
            var y = p.y
            if sourceIsGeographic && target.isWebMercator {
                y = min(max(y, -Self.mercatorMaxLatitude), Self.mercatorMaxLatitude)
            }
            var coord = PJ_COORD()
            coord.xyzt = PJ_XYZT(x: p.x, y: y, z: p.z.isNaN ? 0 : p.z, t: .infinity)
            let out = proj_trans(transform, PJ_FWD, coord)
            guard out.xyzt.x.isFinite, out.xyzt.y.isFinite else { return nil }
            return Position(x: out.xyzt.x, y: out.xyzt.y, z: p.z.isNaN ? .nan : out.xyzt.z, m: p.m)
        }
    }

    /// Whether reprojecting would move a latitude beyond Web Mercator's limit.
    public func clampsLatitude(_ p: Position) -> Bool {
        sourceIsGeographic && target.isWebMercator && abs(p.y) > Self.mercatorMaxLatitude
    }

    /// Reprojects a geometry; nil when any position has no image.
    public func apply(_ geometry: Geometry) -> Geometry? {
        if kind == .identity { return geometry }
        var failed = false
        let result = geometry.mapPositions { p in
            if let q = apply(p) { return q }
            failed = true
            return p
        }
        return failed ? nil : result
    }

    private static func isGeographic(_ crs: OpaquePointer) -> Bool {
        let type = proj_get_type(crs)
        return type == PJ_TYPE_GEOGRAPHIC_2D_CRS || type == PJ_TYPE_GEOGRAPHIC_3D_CRS || type == PJ_TYPE_GEOGRAPHIC_CRS
    }

    private static func lastError(_ context: OpaquePointer?) -> String {
        let code = proj_context_errno(context)
        guard code != 0 else { return "unknown definition" }
        if let words = words(code) { return words }
        return proj_context_errno_string(context, code).map { String(cString: $0) } ?? "unknown definition"
    }

    /// PROJ's error codes (`proj.h`, PROJ_ERR_*) in words, where its own text is only
    /// "Unknown error (code N)".
    static func words(_ code: Int32) -> String? {
        switch code {
        case 1024, 1025: return "the definition is not valid PROJ, WKT or an EPSG code"
        case 1026: return "the definition lacks a required parameter"
        case 1027: return "a parameter of the definition has a value PROJ refuses"
        case 1028: return "the definition has parameters that exclude each other"
        case 1029: return "a grid or resource file the definition needs is missing"
        case 2048, 2049: return "a coordinate is not valid in this system"
        case 2050: return "a coordinate is outside the area this projection covers"
        case 2051: return "PROJ knows no way between these two systems"
        case 2052, 2053: return "a coordinate is outside the grid this transformation needs"
        case 4096, 4097: return "PROJ does not know this coordinate system (an EPSG code that does not exist, or a definition it cannot read)"
        case 4098: return "the transformation cannot be run backwards"
        case 4099: return "PROJ would need the network, which is off"
        default: return nil
        }
    }

    /// The EPSG code PROJ identifies for a WKT definition with high confidence, or nil.
    ///
    /// The corresponding C function is `proj_identify`.
    public static func identifyEPSG(_ crs: CoordinateReferenceSystem) -> Int? {
        if let epsg = crs.epsg { return epsg }
        guard let wkt = crs.wkt else { return nil }
        let context = proj_context_create()
        defer { proj_context_destroy(context) }
        proj_context_set_enable_network(context, 0)
        proj_log_level(context, PJ_LOG_NONE)
        guard let object = proj_create(context, wkt) else { return nil }
        defer { proj_destroy(object) }
        if let auth = proj_get_id_auth_name(object, 0), String(cString: auth) == "EPSG",
            let code = proj_get_id_code(object, 0), let value = Int(String(cString: code))
        {
            return value
        }
        var confidence: UnsafeMutablePointer<Int32>?
        guard let list = proj_identify(context, object, "EPSG", nil, &confidence) else { return nil }
        defer {
            proj_list_destroy(list)
            proj_int_list_destroy(confidence)
        }
        let count = proj_list_get_count(list)
        for i in 0..<count where (confidence?[Int(i)] ?? 0) >= 90 {
            guard let candidate = proj_list_get(context, list, i) else { continue }
            defer { proj_destroy(candidate) }
            if let code = proj_get_id_code(candidate, 0), let value = Int(String(cString: code)) { return value }
        }
        return nil
    }

    /// The CRS's name and its WKT 1 definition (GDAL flavour, what GeoPackage readers expect in
    /// `gpkg_spatial_ref_sys.definition`), or nil when PROJ cannot read it.
    ///
    /// The corresponding C functions are `proj_get_name` and `proj_as_wkt`.
    public static func describe(_ crs: CoordinateReferenceSystem) -> (name: String, wkt: String)? {
        let context = proj_context_create()
        defer { proj_context_destroy(context) }
        proj_context_set_enable_network(context, 0)
        proj_log_level(context, PJ_LOG_NONE)
        guard let object = proj_create(context, crs.projDefinition) else { return nil }
        defer { proj_destroy(object) }
        let name = proj_get_name(object).map { String(cString: $0) } ?? crs.description
        guard let wkt = proj_as_wkt(context, object, PJ_WKT1_GDAL, nil) ?? proj_as_wkt(context, object, PJ_WKT2_2019, nil) else {
            return nil
        }
        return (name, String(cString: wkt))
    }

    /// Whether PROJ can read `crs` at all.
    public static func isKnown(_ crs: CoordinateReferenceSystem) -> String? {
        if crs.isWGS84 || crs.isWebMercator { return nil }
        let context = proj_context_create()
        defer { proj_context_destroy(context) }
        proj_context_set_enable_network(context, 0)
        proj_log_level(context, PJ_LOG_NONE)
        guard let object = proj_create(context, crs.projDefinition) else { return lastError(context) }
        proj_destroy(object)
        return nil
    }
}

/// A coordinate system PROJ cannot use.
public struct CRSError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// PROJ cannot build this coordinate system from its definition.
        case unknownCRS
        /// Both systems are known, but PROJ has no transformation between them.
        case noTransformation
    }

    public var kind: Kind
    public var crs: String
    public var message: String
    public var description: String { "coordinate system \(crs): \(message)" }
}

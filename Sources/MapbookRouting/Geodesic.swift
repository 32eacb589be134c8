#if canImport(Glibc)
import Glibc
#endif

/// Distances and bearings on the WGS84 ellipsoid, for street segments.
public enum Geodesic {
    static let a = 6_378_137.0
    static let f = 1 / 298.257_223_563
    static let b = a * (1 - f)

    /// Metres between two longitude/latitude points along the ellipsoid: Vincenty's inverse
    /// formula (to well under a millimetre at street lengths), and for the nearly antipodal
    /// pairs where it does not converge, which no street has, the spherical distance.
    public static func distance(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) -> Double {
        if lon1 == lon2 && lat1 == lat2 { return 0 }
        let l = (lon2 - lon1) * .pi / 180
        let u1 = atan((1 - f) * tan(lat1 * .pi / 180)), u2 = atan((1 - f) * tan(lat2 * .pi / 180))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)
        var lambda = l
        for _ in 0..<100 {
            let sinL = sin(lambda), cosL = cos(lambda)
            let sinSigma = ((cosU2 * sinL) * (cosU2 * sinL) + (cosU1 * sinU2 - sinU1 * cosU2 * cosL) * (cosU1 * sinU2 - sinU1 * cosU2 * cosL)).squareRoot()
            if sinSigma == 0 { return 0 }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinL / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha == 0 ? 0 : cosSigma - 2 * sinU1 * sinU2 / cos2Alpha
            let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda = l + (1 - c) * f * sinAlpha * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let u2 = cos2Alpha * (a * a - b * b) / (b * b)
                let bigA = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
                let bigB = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
                let deltaSigma = bigB * sinSigma * (cos2SigmaM + bigB / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                    - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return b * bigA * (sigma - deltaSigma)
            }
        }
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        let h = sin((p2 - p1) / 2) * sin((p2 - p1) / 2) + cos(p1) * cos(p2) * sin(l / 2) * sin(l / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// The ellipsoidal length of each segment of a line.
    public static func segmentLengths(_ line: [StreetNetwork.Node]) -> [Double] {
        zip(line, line.dropFirst()).map { distance($0.lon, $0.lat, $1.lon, $1.lat) }
    }

    /// The initial bearing from the first point to the second, in degrees clockwise from
    /// north (0 up to 360); on the sphere, which is within a fraction of a degree of the
    /// ellipsoid's and all directions need.
    public static func bearing(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180, dl = (lon2 - lon1) * .pi / 180
        let y = sin(dl) * cos(p2)
        let x = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)
        let degrees = atan2(y, x) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }
}

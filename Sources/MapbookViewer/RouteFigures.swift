import MapbookSupport

/// A route's length and time as people read them, in `mapbook route`'s directions and the
/// viewer's.
public enum RouteFigures {
    /// "850 m", "12.4 km".
    public static func length(_ metres: Double) -> String {
        metres < 1000 ? "\(Int(metres.rounded())) m" : "\(Format.number((metres / 100).rounded() / 10)) km"
    }

    /// "45 s", "12 min", "1 h 5 min".
    public static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return "\(Int(seconds.rounded())) s" }
        let minutes = Int((seconds / 60).rounded())
        return minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

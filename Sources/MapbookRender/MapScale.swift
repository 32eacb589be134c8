import MapbookData
import MapbookPackage
import MapbookSupport

/// Map scales, and whether a layer shows at one.
///
/// A scale is a denominator: 24000 is 1:24,000. Web map layers show between their `minScale`
/// (the smallest scale, the most zoomed out, a larger number) and their `maxScale` (the
/// largest scale, the most zoomed in); 0 or none means no limit on that side
/// (https://developers.arcgis.com/web-map-specification/objects/featureLayer/).
public enum MapScale {
    /// The scale of `extent` drawn at `width` x `height` pixels of `dpi` dots per inch, its
    /// units being `metresPerUnit` metres on the ground; the extent is fitted whole, so the
    /// scale is that of the axis that needs more units per pixel.
    public static func scale(of extent: BoundingBox, width: Int, height: Int, metresPerUnit: Double, dpi: Double = 96) -> Double {
        let unitsPerPixel = max(extent.width / Double(width), extent.height / Double(height))
        return unitsPerPixel * metresPerUnit * dpi / 0.0254
    }

    /// Whether a layer with this scale range shows at `scale`: not beyond its `minScale`
    /// (zoomed out further) nor within its `maxScale` (zoomed in further).
    public static func contains(_ scale: Double, minScale: Double?, maxScale: Double?) -> Bool {
        if let minScale, minScale > 0, scale > minScale { return false }
        if let maxScale, maxScale > 0, scale < maxScale { return false }
        return true
    }
}

extension OperationalLayer {
    /// Whether the layer's scale range includes `scale` (its `visibility` aside).
    public func isVisible(atScale scale: Double) -> Bool {
        MapScale.contains(scale, minScale: minScale, maxScale: maxScale)
    }
}

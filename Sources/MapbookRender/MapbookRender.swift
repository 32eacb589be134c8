import CCairo

/// The Cairo version this build links, for `mapbook --version` style reports.
public enum MapbookRender {
    public static var cairoVersion: String { String(cString: cairo_version_string()) }
}

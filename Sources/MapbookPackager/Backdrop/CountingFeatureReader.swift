import MapbookData

/// A reader that hands on another's features, shows each to `each` (the backdrop's label
/// texts are gathered so), and calls `progress` with the count read so far every `interval`
/// features, so a long read is seen to move.
final class CountingFeatureReader: FeatureReader {
    let base: FeatureReader
    let interval: Int
    let progress: ((Int) -> Void)?
    let each: ((Feature) -> Void)?
    private(set) var count = 0

    init(_ base: FeatureReader, every interval: Int, progress: ((Int) -> Void)?, each: ((Feature) -> Void)? = nil) {
        self.base = base
        self.interval = max(interval, 1)
        self.progress = progress
        self.each = each
    }

    var path: String { base.path }
    var schema: LayerSchema { base.schema }
    var report: ImportReport { base.report }

    func next() throws -> Feature? {
        guard let feature = try base.next() else { return nil }
        count += 1
        if count % interval == 0 { progress?(count) }
        each?(feature)
        return feature
    }
}

/// How many pixels of a `width` x `height` picture `matches(x, y)` accepts, looking only at
/// `columns` and `rows` when given (clipped to the picture): the counting that render tests
/// do on a canvas or a decoded PNG, whatever type holds the pixels.
public func countPixels(
    width: Int, height: Int, columns: Range<Int>? = nil, rows: Range<Int>? = nil,
    where matches: (_ x: Int, _ y: Int) -> Bool
) -> Int {
    let xs = (columns ?? 0..<width).clamped(to: 0..<max(width, 0))
    let ys = (rows ?? 0..<height).clamped(to: 0..<max(height, 0))
    var n = 0
    for y in ys {
        for x in xs where matches(x, y) { n += 1 }
    }
    return n
}

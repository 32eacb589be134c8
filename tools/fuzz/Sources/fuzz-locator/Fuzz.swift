#if canImport(Glibc)
import Glibc
#endif
import FuzzSupport
import MapbookPackage
import MapbookSearch

/// What a user types into search: suggestions, a geocode of the text and of the first
/// suggestion, near a place taken from the input, over the composite locator of the package
/// that `MAPBOOK_FUZZ_PACKAGE` names (tools/fuzz/run.sh builds the Naperville sample's).
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = FuzzInput.text(bytes)
    let near: (longitude: Double, latitude: Double)? =
        size > 0 && bytes[0] & 1 == 1 ? (longitude: -88.15 + Double(bytes[0]) / 1000, latitude: 41.75) : nil
    if let suggestions = try? locator.suggest(text, near: near) {
        if let first = suggestions.first { _ = try? locator.geocode(suggestion: first, near: near, max: 3) }
    }
    _ = try? locator.geocode(text, near: near)
    return 0
}

/// Opened on the first input; libFuzzer runs inputs one at a time on one thread.
nonisolated(unsafe) let locator: CompositeLocator = {
    guard let path = getenv("MAPBOOK_FUZZ_PACKAGE").map({ String(cString: $0) }) else {
        fatalError("set MAPBOOK_FUZZ_PACKAGE to a package with a locator (tools/fuzz/run.sh does)")
    }
    do {
        guard let locator = try CompositeLocator.open(try MobileMapPackage(path: path)) else { fatalError("\(path) has no locator") }
        return locator
    } catch {
        fatalError("cannot open the locator of \(path): \(error)")
    }
}()

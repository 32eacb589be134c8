/// Which page of results a search returns, from the `start` and `num` parameters.
///
/// `start` is the 1-based number of the first result (default 1); `num` the page size (default
/// 10, at most 100: larger values are capped, as the API documents). `nextStart` is -1 when
/// the page reaches the last result.
public struct SearchPage: Sendable, Equatable {
    public static let defaultSize = 10
    public static let maximumSize = 100

    /// The 1-based number of the first result, or -1 for "past the end".
    public var start: Int
    /// The page size, already capped.
    public var num: Int

    public init(start: Int = 1, num: Int = SearchPage.defaultSize) {
        self.start = start
        self.num = min(max(num, 0), Self.maximumSize)
    }

    /// Reads the API's parameters; nil or empty means the default.
    ///
    /// `start=-1` is accepted and gives an empty page: it is the `nextStart` of a last page, and
    /// clients that feed `nextStart` back (the `arcgis` client's paging loop does when a page
    /// is short) stop on an empty page. `num=0` gives only the total.
    public init(start: String?, num: String?) throws(PortalError) {
        let start = try Self.integer(start, named: "start") ?? 1
        guard start >= 1 || start == -1 else {
            throw PortalError.badRequest("start is 1-based: use start=1 for the first result, not \(start).")
        }
        let num = try Self.integer(num, named: "num") ?? Self.defaultSize
        guard num >= 0 else {
            throw PortalError.badRequest("num is the number of results per page, 0 to \(Self.maximumSize), not \(num).")
        }
        self.init(start: start, num: num)
    }

    private static func integer(_ text: String?, named name: String) throws(PortalError) -> Int? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = Int(text.filter { !$0.isWhitespace }) else {
            throw PortalError.badRequest("\(name) must be a whole number, not '\(text.prefix(40))'.")
        }
        return value
    }

    /// This page of `all`, with what the response reports beside it: the total, the `start` and
    /// `num` asked for (the API echoes the capped page size, not the count on this page), and
    /// the `start` of the next page or -1.
    public func apply<T>(_ all: [T]) -> (results: ArraySlice<T>, total: Int, start: Int, num: Int, nextStart: Int) {
        let window = window(total: all.count)
        return (all[window.offset..<(window.offset + window.count)], all.count, start, num, window.nextStart)
    }

    /// Where this page lies among `total` results: how many to skip, how many to take, and the
    /// `start` of the next page or -1 (for a store that pages itself, as `apply` pages).
    public func window(total: Int) -> (offset: Int, count: Int, nextStart: Int) {
        guard start >= 1, start - 1 < total else { return (total, 0, -1) }
        let offset = start - 1
        let end = offset + min(num, total - offset)
        // A count-only page (num=0) has no next page: following it would never advance.
        let nextStart = end < total && num > 0 ? end + 1 : -1
        return (offset, end - offset, nextStart)
    }
}

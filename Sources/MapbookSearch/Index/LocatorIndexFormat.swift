/// The layout of a locator's `index.sqlite` (docs/FORMAT.md, "Locators").
///
/// Features whose search text folds to the same tokens form one *group* ("Douglas Fir" on
/// 400 trees is one suggestion, and its trees are the candidates when it is chosen). Groups
/// are numbered in the order of their folded text; a group's features are consecutive
/// *entries*, in fid order. Terms (folded tokens) point at groups:
///
/// ```
/// meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID
/// words(first TEXT PRIMARY KEY, terms BLOB, postings BLOB) WITHOUT ROWID     letter tokens
/// numbers(first TEXT PRIMARY KEY, terms BLOB, postings BLOB) WITHOUT ROWID   digit tokens
/// groups(chunk INTEGER PRIMARY KEY, data BLOB)
/// entries(chunk INTEGER PRIMARY KEY, fids BLOB, positions BLOB, ranks BLOB)
/// number_prefixes(prefix TEXT PRIMARY KEY, postings BLOB) WITHOUT ROWID
/// ```
///
/// A `words`/`numbers` row is a block of up to 64 consecutive terms; `first` is the block's
/// first term. `terms` holds, per term: varint bytes shared with the previous term, varint
/// length of the rest, the rest (UTF-8), varint number of groups, then either the group id
/// (one group) or the byte length of the term's posting list inside `postings` (several; the
/// lists follow each other in term order). A posting list is the sorted group ids as varint
/// deltas.
///
/// A `groups` row covers 4,096 groups: varint first entry of the chunk, then per group a
/// varint entry count, one byte with its number of distinct tokens (at most 255) and, when the
/// locator has a rank field, the best rank of its entries (little-endian Float32, NaN: none).
/// An `entries` row covers 4,096 entries: `fids` little-endian integers of `fid_width` bytes;
/// `positions` two little-endian UInt16 per entry, longitude and latitude scaled to the
/// `extent` in meta (65535, 65535 for a feature without a location); `ranks` little-endian
/// Float32 (NaN when the feature has none), present when the locator has a rank field.
/// A `number_prefixes` row holds, for a prefix of one or two digits under which more than 256
/// number terms lie, the posting list of the union of their groups.
///
/// `word_list` (one row) holds the `words` terms once more, flat, so that a reader loads them
/// without decoding 64-term blocks (a locator's first query waited for that): `text` every
/// term's UTF-8 in order; `ends`, `counts` and `groups` one little-endian UInt32 per term: where
/// its UTF-8 ends in `text`, its number of groups, and its group (one) or where its posting list
/// ends in its block's `postings` (several; it starts where the block's previous list ended).
/// Term `i` is in block `i / 64`. Indexes written before it have no such table; readers then
/// decode the blocks, and readers that predate it ignore it.
enum LocatorIndexFormat {
    static let name = "mapbook-locator-index"
    static let version = 1
    static let blockSize = 64
    static let chunkSize = 4096
    static let noPosition: UInt16 = 0xFFFF

    static let schema = """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
        CREATE TABLE words (first TEXT PRIMARY KEY, terms BLOB NOT NULL, postings BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE numbers (first TEXT PRIMARY KEY, terms BLOB NOT NULL, postings BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE groups (chunk INTEGER PRIMARY KEY, data BLOB NOT NULL);
        CREATE TABLE entries (chunk INTEGER PRIMARY KEY, fids BLOB NOT NULL, positions BLOB NOT NULL, ranks BLOB);
        CREATE TABLE number_prefixes (prefix TEXT PRIMARY KEY, postings BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE word_list (text BLOB NOT NULL, ends BLOB NOT NULL, counts BLOB NOT NULL, groups BLOB NOT NULL);
        """

    /// Number prefixes of this many digits or fewer that reach more than `prefixTerms`
    /// terms get their groups' union stored (`number_prefixes`): a typed "HYD-6" then reads
    /// one list instead of walking tens of thousands of terms.
    static let prefixDigits = 2
    static let prefixTerms = 256

    /// Scales a coordinate into 0...65534 of [lo, hi].
    static func quantize(_ v: Double, _ lo: Double, _ hi: Double) -> UInt16 {
        guard hi > lo else { return 0 }
        let t = ((v - lo) / (hi - lo) * 65534).rounded()
        return UInt16(max(0, min(65534, t)))
    }

    static func dequantize(_ q: UInt16, _ lo: Double, _ hi: Double) -> Double {
        hi > lo ? lo + Double(q) / 65534 * (hi - lo) : lo
    }
}


/// A small CSV file without geometry read whole: its column names and its rows as text, each
/// with the line it starts on. For tables a build reads beside its layers (a network's turn
/// restrictions); layers go through `CSVReader`, which streams them.
public struct CSVTable: Sendable {
    public var columns: [String]
    public var rows: [(line: Int, cells: [String])]

    public init(path: String, options: CSVOptions = .init()) throws(DataError) {
        let tokenizer = try CSVTokenizer.open(path, options: options)
        columns = tokenizer.texts(options.encoding)
        rows = []
        while try tokenizer.nextRecord() { rows.append((tokenizer.recordLine, tokenizer.texts(options.encoding))) }
    }
}

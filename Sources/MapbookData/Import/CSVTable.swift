import MapbookPackage

/// A small CSV file without geometry read whole: its column names and its rows as text, each
/// with the line it starts on. For tables a build reads beside its layers (a network's turn
/// restrictions); layers go through `CSVReader`, which streams them.
public struct CSVTable: Sendable {
    public var columns: [String]
    public var rows: [(line: Int, cells: [String])]

    public init(path: String, options: CSVOptions = .init()) throws(DataError) {
        let file: RandomAccessFile
        do { file = try RandomAccessFile(path: path) } catch {
            throw DataError(kind: .file(error.kind), path: path, message: "cannot open: \(error.message)")
        }
        let head: [UInt8]
        do { head = try file.read(at: 0, count: Int(min(file.size, 1 << 16))) } catch {
            throw DataError(kind: .file(error.kind), path: path, message: "cannot read: \(error.message)")
        }
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let delimiter = options.delimiter ?? head.withUnsafeBufferPointer { CSVTokenizer.detectDelimiter(UnsafeBufferPointer(rebasing: $0[bom...])) }
        let tokenizer = CSVTokenizer(file: file, delimiter: delimiter, chunkSize: options.chunkSize)
        tokenizer.seek(to: Int64(bom), line: 1)
        func record() -> [String] {
            (0..<tokenizer.cellCount).map { k in tokenizer.withCell(k) { bytes, _ in options.encoding.decode(bytes).text.trimming(" \t\r\n") } }
        }
        guard try tokenizer.nextRecord() else {
            throw DataError(kind: .empty, path: path, message: "the file is empty; a CSV file needs a header row naming its columns")
        }
        columns = record()
        rows = []
        while try tokenizer.nextRecord() { rows.append((tokenizer.recordLine, record())) }
    }
}

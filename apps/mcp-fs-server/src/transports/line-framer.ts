const NEWLINE = 0x0a;

/** A line that was longer than the limit: only its ends were kept. */
export interface OversizedLine {
  /** The line's length in bytes, without the newline. */
  bytes: number;
  /** Its first bytes (at most `keep`). */
  head: Buffer;
  /** Its last bytes (at most `keep`). */
  tail: Buffer;
}

export interface LineSink {
  /** One or more whole lines, each ending with its newline, in input order. */
  lines(batch: Buffer): void;
  oversized(line: OversizedLine): void;
}

/**
 * Splits a byte stream into newline-terminated lines of at most `maxLineBytes`. A longer line is
 * dropped while it streams in, keeping only its first and last `keep` bytes (enough to recover a
 * request id), so memory stays bounded however long the line is and the lines after it still
 * arrive. Whole lines inside one chunk leave as one batch, so the common case costs one scan.
 */
export class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private dropping: DroppedLine | undefined;

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
    private readonly keep = 4096,
  ) {}

  push(chunk: Buffer): void {
    let pos = 0;
    let batchFrom = -1;
    let batchTo = -1;
    const flushBatch = () => {
      if (batchFrom >= 0) this.sink.lines(chunk.subarray(batchFrom, batchTo));
      batchFrom = -1;
    };
    while (pos < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, pos);
      const end = nl === -1 ? chunk.length : nl;
      const next = nl === -1 ? chunk.length : nl + 1;
      const segment = chunk.subarray(pos, end);
      if (!this.dropping && this.pendingBytes + segment.length > this.maxLineBytes) {
        flushBatch();
        this.dropping = new DroppedLine(this.keep);
        for (const part of this.pending) this.dropping.add(part);
        this.pending = [];
        this.pendingBytes = 0;
      }
      if (this.dropping) {
        this.dropping.add(segment);
        if (nl !== -1) {
          this.sink.oversized(this.dropping.result());
          this.dropping = undefined;
        }
      } else if (nl === -1) {
        flushBatch();
        this.pending.push(segment);
        this.pendingBytes += segment.length;
      } else if (this.pendingBytes > 0) {
        // Only the chunk's first line can continue a pending one, so no batch is open here.
        this.sink.lines(Buffer.concat([...this.pending, chunk.subarray(pos, next)]));
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        if (batchFrom < 0) batchFrom = pos;
        batchTo = next;
      }
      pos = next;
    }
    flushBatch();
  }
}

class DroppedLine {
  private bytes = 0;
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail = Buffer.alloc(0);

  constructor(private readonly keep: number) {}

  add(segment: Buffer): void {
    this.bytes += segment.length;
    if (this.headBytes < this.keep) {
      // Copies, so the dropped chunks themselves can be collected.
      const part = Buffer.from(segment.subarray(0, this.keep - this.headBytes));
      this.head.push(part);
      this.headBytes += part.length;
    }
    const joined = segment.length >= this.keep ? segment : Buffer.concat([this.tail, segment]);
    this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - this.keep)));
  }

  result(): OversizedLine {
    return { bytes: this.bytes, head: Buffer.concat(this.head), tail: this.tail };
  }
}

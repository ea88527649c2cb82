/**
 * Output kept to its last `cap` bytes: runners print their verdict at the end, and a
 * command that prints gigabytes must not take the verifier's memory with it.
 */
export class ProcessTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.cap && this.chunks.length > 0) {
      const over = this.size - this.cap;
      const first = this.chunks[0]!;
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.size -= over;
        this.dropped += over;
      }
    }
  }

  text(): string {
    const body = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped > 0 ? `[… ${this.dropped} bytes of earlier output cut …]\n${body}` : body;
  }
}

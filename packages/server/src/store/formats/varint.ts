/** The LEB128 varints (and zigzag for signed values) that compact result fields are written in. */
export class Writer {
  readonly bytes: number[] = [];
  varint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.bytes.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    this.bytes.push(rest);
  }
  zigzag(value: number): void {
    this.varint(value < 0 ? -value * 2 - 1 : value * 2);
  }
  raw(bytes: Uint8Array): void {
    for (const byte of bytes) this.bytes.push(byte);
  }
}

export class Reader {
  offset = 0;
  constructor(readonly buffer: Buffer) {}
  get done(): boolean {
    return this.offset >= this.buffer.length;
  }
  varint(): number {
    let value = 0;
    for (let scale = 1; ; scale *= 0x80) {
      const byte = this.buffer[this.offset++];
      if (byte === undefined) throw new Error('a stored check result field ends early');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
  }
  zigzag(): number {
    const value = this.varint();
    return value % 2 === 1 ? -(value + 1) / 2 : value / 2;
  }
  raw(length: number): Buffer {
    const bytes = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return bytes;
  }
}


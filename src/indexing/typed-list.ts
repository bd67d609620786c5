// A typed array appended to, grown by doubling: a value per link or per record of a vault is too
// many for a number[].

export class TypedList<T extends Int32Array | Uint32Array> {
  /** The values, in `array[0 .. length)` (the rest is room) */
  array: T;
  length = 0;

  constructor(private readonly make: new (length: number) => T) {
    this.array = new make(1024);
  }

  push(value: number): void {
    if (this.length === this.array.length) {
      const bigger = new this.make(this.array.length * 2);
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[this.length++] = value;
  }

  /** A copy of the values, of their length. */
  done(): T {
    return this.array.slice(0, this.length) as T;
  }
}

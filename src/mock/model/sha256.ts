/**
 * SHA-256 of a UTF-8 string, synchronously. Web Crypto only digests
 * asynchronously, and the mock derives retrieval event ids and its
 * deterministic identifiers inside synchronous state changes (the control
 * API returns at once, like the rest of the model); `node:crypto` would tie
 * the mock to Node. FIPS 180-4, checked against `node:crypto` in the tests.
 */

const PRIMES = [
  2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
  101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193,
  197, 199, 211, 223, 227, 229, 233, 239, 241, 251, 257, 263, 269, 271, 277, 281, 283, 293, 307,
  311,
];

// The first 32 bits of the fractional parts of the square roots (initial
// hash) and cube roots (round constants) of the first primes; a double holds
// them exactly enough because the integer parts need at most 3 bits.
const fraction32 = (x: number): number => ((x - Math.floor(x)) * 2 ** 32) >>> 0;
const INITIAL = Uint32Array.from(PRIMES.slice(0, 8), (p) => fraction32(Math.sqrt(p)));
const K = Uint32Array.from(PRIMES, (p) => fraction32(Math.cbrt(p)));

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const blocks = Math.ceil((bytes.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = bytes.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);

  const hash = Uint32Array.from(INITIAL);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = w[i - 16]! + s0 + w[i - 7]! + s1;
    }
    let [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = hash;
    for (let i = 0; i < 64; i++) {
      const s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + s1 + ch + K[i]! + w[i]!) | 0;
      const s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    const rounds = [a, b, c, d, e, f, g, h];
    for (let i = 0; i < 8; i++) hash[i] = hash[i]! + rounds[i]!;
  }
  let out = "";
  for (const word of hash) out += word.toString(16).padStart(8, "0");
  return out;
}

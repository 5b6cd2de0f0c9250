import type { FileHandle } from "node:fs/promises";

/** One line of a file, with where it starts and ends (the end past its newline). */
export interface FileLine {
  text: string;
  start: number;
  end: number;
  /** False for a last line without its newline (an append cut short, or still being written). */
  complete: boolean;
  /** 1-based line number, counted from `from`. */
  number: number;
}

const CHUNK = 64 * 1024;

/** The lines of `handle` from byte `from` up to byte `to`, read a chunk at a time. */
export async function* fileLines(
  handle: FileHandle,
  from: number,
  to: number,
): AsyncGenerator<FileLine, void, undefined> {
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let pending: Uint8Array[] = [];
  let pendingStart = from;
  let position = from;
  let number = 0;
  const buffer = new Uint8Array(CHUNK);
  const take = (upto: Uint8Array, complete: boolean, end: number): FileLine => {
    pending.push(upto);
    const total = pending.reduce((n, p) => n + p.byteLength, 0);
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const p of pending) {
      bytes.set(p, at);
      at += p.byteLength;
    }
    const line = {
      text: decoder.decode(bytes),
      start: pendingStart,
      end,
      complete,
      number: ++number,
    };
    pending = [];
    pendingStart = end;
    return line;
  };
  while (position < to) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, to - position), position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    let lineStart = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, lineStart)) {
      yield take(chunk.slice(lineStart, i), true, position + i + 1);
      lineStart = i + 1;
    }
    if (lineStart < bytesRead) pending.push(chunk.slice(lineStart));
    position += bytesRead;
  }
  if (pending.length > 0) yield take(new Uint8Array(0), false, position);
}

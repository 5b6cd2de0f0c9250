/**
 * Text from the service (event fields, error messages), made safe to write to
 * a terminal. A field holding ESC or an 8-bit CSI could otherwise move the
 * cursor, rewrite what was printed, set the window title (OSC) or, on some
 * terminals, answer back; bidirectional overrides can make a line read
 * differently from what it holds. Each such character is written as a
 * visible escape (`\x1b`, `\u202e`) instead: C0 controls (tabs and line ends
 * included, since each field belongs on its line), DEL, C1 controls, and the
 * Unicode bidirectional controls.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw of the above: C0 it escapes itself. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const hex = (code: number, width: number) => code.toString(16).padStart(width, "0");

/** `text` with every control and bidi control character written as a visible escape. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
  });
}

/**
 * `JSON.stringify(value)` with nothing a terminal interprets left raw: the
 * same JSON value (C1 and bidi controls become `\uXXXX` escapes, which any
 * JSON reader decodes back).
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_IN_JSON, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}

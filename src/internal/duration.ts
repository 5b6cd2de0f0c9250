/**
 * The one grammar of durations, wherever one is typed: `mock.clock.advance`,
 * the control API's clock advance, `--interval`, and `--since` of `listen`
 * and `events tail`. A number and a unit: ms, s, m, h or d ("500ms", "90s",
 * "1.5m", "2h", "31d"), spaces around allowed.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/;

/** How the grammar is explained in messages. */
export const DURATION_EXAMPLES = '"500ms", "90s", "15m", "2h" or "31d"';

/** Milliseconds of a duration such as "15m" (rounded to whole ms); undefined when it is not one. */
export function parseDurationText(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null) return undefined;
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] as string] as number));
}

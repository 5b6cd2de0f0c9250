import { vi } from "vitest";

/** What a program prints with `console.log`, kept from the terminal (restored by `vi.restoreAllMocks`). */
export function captureLines(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, "log").mockImplementation((line: string) => {
    lines.push(line);
  });
  return lines;
}

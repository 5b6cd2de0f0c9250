/** An error's message as text, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Every run of whitespace as one space: a command's failure is one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

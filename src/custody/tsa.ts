export async function requestTimestamp(
  _t: unknown,
  _h: string,
): Promise<{ token: Uint8Array; time: Date }> {
  throw new Error("todo");
}

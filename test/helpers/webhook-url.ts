/** A webhook URL exactly `length` characters long, for the URL length limit's boundaries. */
export function webhookUrlOfLength(length: number): string {
  const base = "https://hooks.example.test/";
  return `${base}${"a".repeat(length - base.length)}`;
}

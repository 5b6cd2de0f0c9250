/**
 * Reads an environment variable where `process` exists (not in browsers or
 * Workers). Undefined when it is unset or blank, and when the runtime refuses
 * access: Deno without `--allow-env` throws `NotCapable` on a read, and the
 * SDK's optional settings (`MEDRECORDS_LOG`, proxy variables) must not make
 * a client unusable there.
 */
export function readEnv(name: string): string | undefined {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
      ?.env;
    const value = env?.[name]?.trim();
    return value === "" ? undefined : value;
  } catch {
    return undefined;
  }
}

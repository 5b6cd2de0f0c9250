/**
 * The real Redis and PostgreSQL servers the store tests run against, from
 * MEDRECORDS_TEST_REDIS_URL and MEDRECORDS_TEST_POSTGRES_URL (.ci/run starts
 * both with test/stores/servers.sh). Without the variable a suite fails under
 * CI, where the server should have been started, and is skipped with a loud
 * warning elsewhere.
 */
import pg from "pg";
import { createClient } from "redis";
import { describe, it } from "vitest";

export type Server = "redis" | "postgres";

const SERVERS = {
  redis: { variable: "MEDRECORDS_TEST_REDIS_URL", label: "Redis" },
  postgres: { variable: "MEDRECORDS_TEST_POSTGRES_URL", label: "PostgreSQL" },
} as const;

const START_HINT =
  'start both with `eval "$(bash test/stores/servers.sh start .tmp/servers)"` ' +
  "(stop them with `bash test/stores/servers.sh stop .tmp/servers`)";

const isCi = () => {
  const ci = process.env.CI;
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
};

/** The server's URL, or undefined when its variable is not set. */
export function serverUrl(server: Server): string | undefined {
  const url = process.env[SERVERS[server].variable];
  return url === undefined || url === "" ? undefined : url;
}

/**
 * `describe(name, ...)` with the server's URL; without the URL, a failing
 * test under CI and `describe.skip` plus a warning elsewhere.
 */
export function describeWithServers(
  servers: readonly Server[],
  name: string,
  body: (urls: Record<Server, string>) => void,
): void {
  const missing = servers.filter((server) => serverUrl(server) === undefined);
  if (missing.length === 0) {
    const urls = { redis: serverUrl("redis") ?? "", postgres: serverUrl("postgres") ?? "" };
    describe(name, () => body(urls));
    return;
  }
  const what = missing
    .map((server) => `${SERVERS[server].label} (${SERVERS[server].variable})`)
    .join(" and ");
  if (isCi()) {
    describe(name, () => {
      it(`needs ${what}`, () => {
        throw new Error(
          `${what} not set under CI: .ci/run should have started the server with test/stores/servers.sh.`,
        );
      });
    });
    return;
  }
  console.warn(
    `\n!!! SKIPPED "${name}": no ${what}. These tests need a real server; ${START_HINT}.\n`,
  );
  describe.skip(name, () => body({ redis: "", postgres: "" }));
}

/** A connected node-redis client, quit by the caller. */
export async function connectRedis(url: string) {
  return createClient({ url }).connect();
}

export type RedisClient = Awaited<ReturnType<typeof connectRedis>>;

/** A pg pool, ended by the caller. */
export function postgresPool(url: string, max = 10): pg.Pool {
  return new pg.Pool({ connectionString: url, max });
}

/** A table or key prefix no other test (or run) uses. */
export function uniqueName(base: string): string {
  return `${base}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * A webhook receiver for the Medical Record Retrieval API v2 on node:http.
 *
 * On every retrieval request event it fetches the retrieval request and keeps
 * it only when its `public_updated_at` is newer than the cached copy's:
 * deliveries come late, twice and out of order (spec, Delivery rule 7), so the
 * event itself never says which state is the latest. Duplicate deliveries are
 * acknowledged without processing through a dedupe store: in memory for one
 * instance, in Redis (REDIS_URL) when several instances share the traffic.
 *
 * Run it from a project that installed `medrecords` (Node 22.18 or later runs
 * TypeScript; it strips no file inside node_modules, hence the copy, and
 * `.mts` makes it an ES module whatever your package.json says):
 *
 *   cp node_modules/medrecords/examples/webhook-receiver.ts receiver.mts
 *   MEDRECORDS_API_KEY=medrecords_sk_live_... MEDRECORDS_BASE_URL=https://... \
 *   MEDRECORDS_WEBHOOK_SECRET=whsec_... \
 *   [REDIS_URL=redis://127.0.0.1:6379] [PORT=3000] [HOST=127.0.0.1] \
 *   node receiver.mts
 *
 * (From a clone of the repository: `npm run build`, then `node examples/webhook-receiver.ts`.)
 *
 * and register http://<host>:3000/webhooks/medrecords as the webhook URL.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { MedRecords, type RetrievalRequest } from "medrecords";
import {
  createWebhookHandler,
  type DedupeStore,
  type EventOfType,
  type HandledEventType,
  isNewerRetrievalRequest,
  memoryDedupeStore,
  redisDedupeStore,
  toNodeListener,
} from "medrecords/webhooks";

/** The path the service POSTs deliveries to. */
export const WEBHOOK_PATH = "/webhooks/medrecords";

/** Any retrieval request event: each carries `data.retrieval_request_id`. */
export type RetrievalEvent = EventOfType<HandledEventType>;

/** Where the latest known copy of each retrieval request is kept. */
export interface RetrievalRequestCache {
  get(id: string): Promise<RetrievalRequest | undefined>;
  /**
   * Stores `fetched` unless the cached copy is as new or newer; resolves
   * whether it stored. The compare and the write must be one atomic step
   * per id, or two concurrent deliveries could put an older copy back. In a
   * database shared by several instances, a conditional upsert does it:
   * `INSERT ... ON CONFLICT (id) DO UPDATE SET ... WHERE cache.public_updated_at < EXCLUDED.public_updated_at`.
   */
  saveIfNewer(fetched: RetrievalRequest): Promise<boolean>;
}

/** A {@link RetrievalRequestCache} in this process's memory. */
export function memoryRetrievalRequestCache(): RetrievalRequestCache & {
  entries(): Map<string, RetrievalRequest>;
} {
  const cached = new Map<string, RetrievalRequest>();
  return {
    async get(id) {
      return cached.get(id);
    },
    async saveIfNewer(fetched) {
      // No await between the compare and the write: atomic in one process.
      if (!isNewerRetrievalRequest(fetched, cached.get(fetched.id))) return false;
      cached.set(fetched.id, fetched);
      return true;
    },
    entries: () => new Map(cached),
  };
}

export interface ReceiverOptions {
  /** The webhook's secret (`whsec_...`), or several while rotating. */
  secret: string | readonly string[];
  /** The SDK client the retrieval requests are fetched with. */
  client: Pick<MedRecords, "retrievalRequests">;
  /** Processed event ids; share one store across instances. @default memoryDedupeStore() */
  dedupe?: DedupeStore;
  /** @default memoryRetrievalRequestCache() */
  cache?: RetrievalRequestCache;
  /** Called once per processed event, after the cache was updated (for logs and metrics). */
  onProcessed?: (
    event: RetrievalEvent,
    outcome: { stored: boolean; fetched: RetrievalRequest },
  ) => void;
}

export interface Receiver {
  /** Fetch-style handler: `(request: Request) => Promise<Response>`. */
  handler: (request: Request) => Promise<Response>;
  /** node:http listener: deliveries on {@link WEBHOOK_PATH}, 404 elsewhere. */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  cache: RetrievalRequestCache;
}

/** The receiver's building blocks, without a server. */
export function createReceiver(options: ReceiverOptions): Receiver {
  const cache = options.cache ?? memoryRetrievalRequestCache();

  const refresh = async (event: RetrievalEvent) => {
    const fetched = await options.client.retrievalRequests.retrieve(
      event.data.retrieval_request_id,
    );
    const stored = await cache.saveIfNewer(fetched);
    options.onProcessed?.(event, { stored, fetched });
  };

  const handler = createWebhookHandler({
    secret: options.secret,
    dedupe: options.dedupe ?? memoryDedupeStore(),
    // A function that throws answers 500 and releases the claim: the service retries.
    on: {
      "retrieval_request.status_changed": refresh,
      "retrieval_request.action_required": refresh,
      "retrieval_request.documents_available": refresh,
    },
  });
  const webhook = toNodeListener(handler);

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? "/", "http://localhost").pathname !== WEBHOOK_PATH) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "not_found" }));
      return;
    }
    webhook(req, res);
  };

  return { handler, listener, cache };
}

/** A running receiver, from environment variables as in the header above. */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const secret = env.MEDRECORDS_WEBHOOK_SECRET;
  if (!secret) throw new Error("Set MEDRECORDS_WEBHOOK_SECRET to the webhook's whsec_... secret.");
  const client = new MedRecords({
    apiKey: env.MEDRECORDS_API_KEY,
    baseUrl: env.MEDRECORDS_BASE_URL,
  });

  let dedupe: DedupeStore = memoryDedupeStore();
  let closeRedis = async () => {};
  if (env.REDIS_URL) {
    // Loaded only when asked for: `redis` is an optional peer dependency.
    const { createClient } = await import("redis");
    // Commands fail at once while Redis is down (503) instead of queuing (docs/stores.md).
    const redis = createClient({ url: env.REDIS_URL, disableOfflineQueue: true });
    redis.on("error", (error: Error) => console.error("redis:", error.message));
    await redis.connect();
    dedupe = redisDedupeStore({ client: redis });
    closeRedis = async () => {
      await redis.quit();
    };
  }

  const receiver = createReceiver({
    secret,
    client,
    dedupe,
    onProcessed: (event, { stored, fetched }) =>
      console.log(
        `${event.id} ${event.type}: ${fetched.id} ${fetched.status}/${fetched.stage} ` +
          `at ${fetched.public_updated_at}${stored ? "" : " (not newer, kept the cached copy)"}`,
      ),
  });
  const server = createServer(receiver.listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(env.PORT ?? 3000), env.HOST ?? "127.0.0.1", resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address}:${port}${WEBHOOK_PATH}`;
  console.log(`Receiving webhooks at ${url} (dedupe: ${env.REDIS_URL ? "Redis" : "memory"})`);

  return {
    url,
    receiver,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeRedis();
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const running = await main();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void running.close().then(() => process.exit(0)));
  }
}

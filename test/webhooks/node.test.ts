import {
  type ClientRequest,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type RequestListener,
  type Server,
} from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createWebhookHandler,
  toNodeListener,
  type WebhookEventHandlers,
} from "../../src/webhooks/index.js";
import { NOW_MS, nodeSignedHeaders, SECRET, statusChanged, TS } from "./fixtures.js";

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  );
});

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function webhook(on: WebhookEventHandlers = {}) {
  return createWebhookHandler({ secret: SECRET, on, now: () => NOW_MS, onError: () => {} });
}

function post(
  url: string,
  event: object = statusChanged,
  options: { ts?: number; secret?: string } = {},
) {
  const body = JSON.stringify(event);
  return fetch(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...nodeSignedHeaders(body, options) },
  });
}

describe("toNodeListener on node:http", () => {
  it("reads the raw body from the stream and verifies it", async () => {
    const fn = vi.fn();
    const base = await listen(toNodeListener(webhook({ "retrieval_request.status_changed": fn })));
    const response = await post(`${base}/hook`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(fn).toHaveBeenCalledWith(
      expect.objectContaining({ id: statusChanged.id }),
      expect.objectContaining({ request: expect.any(Request) }),
    );
  });

  it("acknowledges a duplicate and runs the handler once", async () => {
    const fn = vi.fn();
    const base = await listen(toNodeListener(webhook({ "retrieval_request.status_changed": fn })));
    expect((await post(base)).status).toBe(200);
    const again = await post(base, statusChanged, { ts: TS + 60 });
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("answers 500 to a throwing handler and processes the retry", async () => {
    let calls = 0;
    const base = await listen(
      toNodeListener(
        webhook({
          "retrieval_request.status_changed": () => {
            calls++;
            if (calls === 1) throw new Error("boom");
          },
        }),
      ),
    );
    expect((await post(base)).status).toBe(500);
    expect((await post(base, statusChanged, { ts: TS + 60 })).status).toBe(200);
    expect(calls).toBe(2);
  });

  it("answers 400 without detail to a bad signature", async () => {
    const base = await listen(toNodeListener(webhook()));
    const response = await post(base, statusChanged, { secret: "whsec_wrong" });
    expect(response.status).toBe(400);
    expect(await response.text()).toBe('{"error":"invalid_webhook"}');
  });

  it("answers 413 to a body over maxBodyBytes", async () => {
    const base = await listen(toNodeListener(webhook(), { maxBodyBytes: 64 }));
    expect((await post(base)).status).toBe(413);
  });
});

/** A POST sent in chunks without Content-Length; `end()` finishes the body. */
function chunked(url: string, headers: Record<string, string>) {
  const request: ClientRequest = httpRequest(url, {
    method: "POST",
    headers: { "content-type": "application/json", "transfer-encoding": "chunked", ...headers },
  });
  request.on("error", () => {});
  const answered = new Promise<{ status: number; body: string; connection?: string }>((resolve) => {
    request.on("response", (response: IncomingMessage) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          body,
          connection: response.headers.connection,
        }),
      );
    });
  });
  return { request, answered };
}

describe("toNodeListener reads the body only when the handler does", () => {
  it("answers an unsigned request while its body is still arriving, without reading it", async () => {
    const base = await listen(toNodeListener(webhook()));
    const { request, answered } = chunked(base, {});
    // A first chunk, then the body stays open: a listener that read the body
    // before the handler saw the headers would wait for it for ever.
    request.write("x".repeat(16_384));
    const answer = await answered;
    request.destroy();
    expect(answer.status).toBe(400);
    expect(answer.body).toBe('{"error":"invalid_webhook"}');
    // The unread rest is not drained for a next request on this connection.
    expect(answer.connection).toBe("close");
  });

  it("takes nothing from the request stream when the handler refuses on the headers", async () => {
    const listener = toNodeListener(webhook());
    let reads = 0;
    let readsBeforeAnswer: number | undefined;
    const base = await listen((req, res) => {
      const read = req.read.bind(req);
      req.read = (size?: number) => {
        // read(0) is Node's own, filling its buffer; a read of the body asks for more.
        if (size !== 0) reads += 1;
        return read(size);
      };
      req[Symbol.asyncIterator] = () => {
        throw new Error("the adapter iterated the request");
      };
      const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
      res.end = ((...args: unknown[]) => {
        readsBeforeAnswer ??= reads;
        return end(...args);
      }) as typeof res.end;
      listener(req, res);
    });
    const { request, answered } = chunked(base, {});
    request.end("x".repeat(1_024));
    expect((await answered).status).toBe(400);
    expect(readsBeforeAnswer).toBe(0);
  });

  it("verifies a signed delivery sent in chunks without Content-Length", async () => {
    const fn = vi.fn();
    const base = await listen(toNodeListener(webhook({ "retrieval_request.status_changed": fn })));
    const body = JSON.stringify(statusChanged);
    const { request, answered } = chunked(base, nodeSignedHeaders(body));
    request.write(body.slice(0, 10));
    request.end(body.slice(10));
    const answer = await answered;
    expect(answer.status).toBe(200);
    expect(answer.connection).not.toBe("close");
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("answers 413 to a signed chunked body one byte over maxBodyBytes, and takes one at it", async () => {
    const body = JSON.stringify(statusChanged);
    const size = new TextEncoder().encode(body).byteLength;
    for (const [max, status] of [
      [size - 1, 413],
      [size, 200],
    ] as const) {
      const base = await listen(toNodeListener(webhook(), { maxBodyBytes: max }));
      const { request, answered } = chunked(base, nodeSignedHeaders(body));
      request.write(body.slice(0, 10));
      request.end(body.slice(10));
      expect((await answered).status).toBe(status);
    }
  });

  it("keeps the connection open after refusing a request with an empty body", async () => {
    const base = await listen(toNodeListener(webhook()));
    const response = await fetch(base, { method: "POST", body: "" });
    expect(response.status).toBe(400);
    expect(response.headers.get("connection")).not.toBe("close");
  });

  it("answers 413 when a handler of its own lets the cap's error through", async () => {
    const base = await listen(
      toNodeListener(async (request) => new Response(await request.text()), { maxBodyBytes: 8 }),
    );
    const { request, answered } = chunked(base, {});
    request.end("0123456789");
    const answer = await answered;
    expect(answer.status).toBe(413);
    expect(answer.body).toBe('{"error":"payload_too_large"}');
  });
});

describe("toNodeListener behind Express", () => {
  it("verifies when express.json() is mounted on other routes", async () => {
    const fn = vi.fn();
    const app = express();
    app.use("/api", express.json());
    app.post("/api/echo", (req, res) => {
      res.json(req.body);
    });
    app.post("/webhooks", toNodeListener(webhook({ "retrieval_request.status_changed": fn })));
    const base = await listen(app);

    const echoed = await fetch(`${base}/api/echo`, {
      method: "POST",
      body: '{"a":1}',
      headers: { "content-type": "application/json" },
    });
    expect(await echoed.json()).toEqual({ a: 1 });
    const response = await post(`${base}/webhooks`);
    expect(response.status).toBe(200);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("verifies after express.json() registered later in the chain", async () => {
    const app = express();
    app.post("/webhooks", toNodeListener(webhook()));
    app.use(express.json());
    const base = await listen(app);
    expect((await post(`${base}/webhooks`)).status).toBe(200);
  });

  it("uses req.body from express.raw() and express.text() as the raw body", async () => {
    const fn = vi.fn();
    const handler = toNodeListener(webhook({ "retrieval_request.status_changed": fn }));
    const app = express();
    app.post("/raw", express.raw({ type: "application/json" }), handler);
    app.post("/text", express.text({ type: "application/json" }), handler);
    const base = await listen(app);
    expect((await post(`${base}/raw`)).status).toBe(200);
    expect(
      (await post(`${base}/text`, { ...statusChanged, id: `${statusChanged.id}-2` })).status,
    ).toBe(200);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it("answers 500 with where to mount the route when express.json() already parsed the body", async () => {
    const onError = vi.fn();
    const fn = vi.fn();
    const app = express();
    app.use(express.json());
    app.post(
      "/webhooks",
      toNodeListener(webhook({ "retrieval_request.status_changed": fn }), { onError }),
    );
    const base = await listen(app);
    const response = await post(`${base}/webhooks`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain("express.json()");
    expect(text).toContain("express.raw");
    expect(onError).toHaveBeenCalledTimes(1);
    expect(fn).not.toHaveBeenCalled();
  });

  it("passes an unexpected failure to Express's next()", async () => {
    const app = express();
    app.post(
      "/webhooks",
      toNodeListener(async () => {
        throw new Error("handler bug");
      }),
    );
    app.use(
      (
        _error: unknown,
        _req: express.Request,
        res: express.Response,
        _next: express.NextFunction,
      ) => {
        res.status(503).send("handled by express");
      },
    );
    const base = await listen(app);
    const response = await post(`${base}/webhooks`);
    expect(response.status).toBe(503);
    expect(await response.text()).toBe("handled by express");
  });
});

describe("toNodeListener: a deadline for the whole body", () => {
  /** Resolves to the answer, or to "none" when there is none within `ms`. */
  function within<T>(answer: Promise<T>, ms: number): Promise<T | "none"> {
    return Promise.race([answer, new Promise<"none">((r) => setTimeout(() => r("none"), ms))]);
  }

  it("answers 408 to a body dripping a byte every 50 ms once 300 ms have passed, and closes", async () => {
    const errors: unknown[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      on: {},
      now: () => NOW_MS,
      onError: (error) => errors.push(error),
    });
    const base = await listen(toNodeListener(handler, { bodyTimeoutMs: 300 }));
    const body = JSON.stringify(statusChanged);
    const { request, answered } = chunked(base, nodeSignedHeaders(body));
    let dripped = 0;
    // Never idle for more than 50 ms: an idle timeout would wait for all of it (about 10 s).
    const drip = setInterval(() => {
      if (dripped < body.length) request.write(body[dripped++]!);
    }, 50);
    try {
      const answer = await within(answered, 5_000);
      expect(answer).toMatchObject({ status: 408, body: '{"error":"request_timeout"}' });
      expect(answer).toMatchObject({ connection: "close" });
      expect(dripped).toBeLessThan(body.length / 4);
    } finally {
      clearInterval(drip);
      request.destroy();
    }
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).name).toBe("BodyTimeoutError");
  });

  it("answers 408 to a request whose announced body never comes", async () => {
    const base = await listen(toNodeListener(webhook(), { bodyTimeoutMs: 200 }));
    const body = JSON.stringify(statusChanged);
    const request = httpRequest(base, {
      method: "POST",
      headers: { "content-length": String(body.length), ...nodeSignedHeaders(body) },
    });
    request.on("error", () => {});
    request.flushHeaders();
    const answered = new Promise<number>((resolve) => {
      request.on("response", (response: IncomingMessage) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
    });
    try {
      expect(await within(answered, 5_000)).toBe(408);
    } finally {
      request.destroy();
    }
  });

  it("lets a body that arrives whole within the deadline through, however it was cut", async () => {
    const fn = vi.fn();
    const base = await listen(
      toNodeListener(webhook({ "retrieval_request.status_changed": fn }), { bodyTimeoutMs: 2_000 }),
    );
    const body = JSON.stringify(statusChanged);
    const { request, answered } = chunked(base, nodeSignedHeaders(body));
    request.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    request.end(body.slice(10));
    expect((await answered).status).toBe(200);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("waits 10 s by default: no answer at 9 999 ms, 408 at 10 000 ms", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let arrived!: () => void;
      const reading = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const listener = toNodeListener(async (request) => {
        arrived();
        return new Response(await request.text());
      });
      const base = await listen(listener);
      const { request, answered } = chunked(base, {});
      request.write("x");
      let answer: { status: number } | undefined;
      void answered.then((a) => {
        answer = a;
      });
      await reading;
      const turns = async () => {
        for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      };
      await vi.advanceTimersByTimeAsync(9_999);
      await turns();
      expect(answer).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      vi.useRealTimers();
      expect((await within(answered, 5_000)) as { status: number }).toMatchObject({ status: 408 });
      request.destroy();
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses an unusable bodyTimeoutMs at creation", () => {
    for (const bodyTimeoutMs of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => toNodeListener(webhook(), { bodyTimeoutMs })).toThrow(/bodyTimeoutMs/);
    }
    expect(() =>
      toNodeListener(webhook(), { bodyTimeoutMs: Number.POSITIVE_INFINITY }),
    ).not.toThrow();
  });
});

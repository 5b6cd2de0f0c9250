/**
 * The inspector (`/__mock/ui`) in a real browser: Debian's Chromium driven by
 * playwright-core, against `startMockServer` on loopback, with the SDK's
 * client and a webhook receiver on loopback beside it, as a developer has
 * them. Every move made on the page is checked through the API. Without
 * Chromium the file is skipped with a warning; under CI it fails (.ci/run
 * installs chromium).
 */
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { MedRecords } from "../../src/index.js";
import { type MockServer, startMockServer } from "../../src/mock/index.js";
import { startCli } from "../helpers/cli.js";
import { closeServer, listenOn } from "../helpers/loopback.js";
import { CHROMIUM_ARGS } from "../runtimes/chromium-args.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  if (process.env.CI) {
    throw new Error(`${CHROMIUM} is not installed: .ci/run installs it (apt-get install chromium)`);
  }
  console.warn(
    `\n*** test/inspector/inspector.browser.test.ts SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium, or set CHROMIUM) ***\n`,
  );
}

const START = "2026-03-01T10:00:00.000Z";
const STATUS_CHANGED = "retrieval_request.status_changed";
/** What the receiver answers: it must never reach the page. */
const RECEIVER_BODY = "RECEIVER-ANSWER-never-shown-7f3a";

let browser: Browser;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
afterAll(() => browser?.close());

interface Setup {
  server: MockServer;
  key: string;
  mr: MedRecords;
  /** A retrieval request created through the API. */
  createRequest(): Promise<string>;
}

async function setup(): Promise<Setup> {
  const server = await startMockServer({ now: START, allowPrivateWebhookUrls: true });
  onTestFinished(() => server.close());
  const key = server.apiKeys.create();
  const mr = new MedRecords({ apiKey: key, baseUrl: server.url, maxRetries: 0 });
  const createRequest = async () => {
    const auth_form = await mr.retrievalRequests.uploadFile({
      file: new TextEncoder().encode("%PDF-1.4\n%%EOF\n"),
      file_name: "authorization.pdf",
      file_type: "application/pdf",
    });
    const created = await mr.retrievalRequests.create({
      case: { title: "Inspector v. Test (fictional)", client_name: "Ivy Inspector" },
      facility_id: "fac_mercy_general",
      requestor: { name: "Paralegal", email: "paralegal@firm.example" },
      auth_form,
    });
    return created.id;
  };
  return { server, key, mr, createRequest };
}

interface Opened {
  page: Page;
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Every URL the page requested. */
  requested: string[];
  /** Every body the page received, read once the test is done with the page. */
  bodies(): Promise<string[]>;
}

async function open(server: MockServer): Promise<Opened> {
  const context = await browser.newContext();
  onTestFinished(() => context.close());
  const page = await context.newPage();
  const errors: string[] = [];
  const requested: string[] = [];
  const reads: Promise<string>[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("request", (request) => requested.push(request.url()));
  page.on("response", (response) => reads.push(response.text().catch(() => "")));
  const answer = await page.goto(server.inspectorUrl);
  expect(answer?.status()).toBe(200);
  expect(answer?.headers()["content-security-policy"]).toContain("default-src 'self'");
  // The first read of the state has been drawn.
  await page.locator("#clock-now time").waitFor();
  return { page, errors, requested, bodies: () => Promise.all(reads) };
}

/** The page reads the state once a second: a change shows within a few. */
const eventually = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 10_000, interval: 50 });

const card = (page: Page, id: string) => page.locator(`article[data-request-id="${id}"]`);

describe.skipIf(!HAVE_CHROMIUM)("the inspector at /__mock/ui in Chromium", () => {
  it("loads with its regions and the clock, no console error, and nothing from another origin", async () => {
    const { server, createRequest } = await setup();
    const id = await createRequest();
    const { page, errors, requested } = await open(server);
    await card(page, id).waitFor();
    for (const name of ["Retrieval requests", "Events", "Deliveries", "Requests", "Clock"]) {
      await eventually(() => page.getByRole("heading", { name, exact: true }).count()).toBe(1);
    }
    expect(await page.locator("#clock-now time").getAttribute("datetime")).toBe(START);
    for (const name of ["Advance by", "Type", "Object or event id"]) {
      expect(await page.getByLabel(name, { exact: true }).count()).toBe(1);
    }
    // Every control has a name a screen reader announces: a label, or its own text.
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("button, input, select, a")]
        .filter((element) => {
          const labels = (element as HTMLInputElement).labels;
          const named =
            (labels !== undefined && labels !== null && labels.length > 0) ||
            element.getAttribute("aria-label") ||
            (element.tagName !== "INPUT" &&
              element.tagName !== "SELECT" &&
              element.textContent?.trim());
          return !named;
        })
        .map((element) => element.outerHTML),
    );
    expect(unnamed).toEqual([]);
    const origins = new Set(requested.map((url) => new URL(url).origin));
    expect([...origins]).toEqual([server.url]);
    expect(requested.map((url) => new URL(url).pathname)).toEqual(
      expect.arrayContaining([
        "/__mock/ui",
        "/__mock/ui/inspector.js",
        "/__mock/ui/inspector.css",
        "/__mock/state",
      ]),
    );
    expect(errors).toEqual([]);
  });

  it("shows a retrieval request created through the API, with its timeline and the journal entry, without a reload", async () => {
    const { server, mr, createRequest } = await setup();
    const { page, errors } = await open(server);
    let navigations = 0;
    page.on("framenavigated", () => {
      navigations += 1;
    });
    const id = await createRequest();
    await card(page, id).waitFor();
    await eventually(() => card(page, id).locator(".timeline li").first().textContent()).toContain(
      "created",
    );
    // The provider moves it on in process: the page follows.
    server.retrievalRequests.setStatus(id, { status: "processing", stage: "provider_processing" });
    await eventually(() => card(page, id).locator(".timeline").textContent()).toContain(
      "processing (provider_processing)",
    );
    const event = (await mr.events.list({ object_id: id })).results[0];
    await eventually(() => page.locator("#events-body").textContent()).toContain(event?.id);
    const created = server.requests.find(
      (entry) => entry.method === "POST" && entry.pathTemplate === "/v2/retrieval-requests",
    );
    await eventually(() => page.locator("#requests-body").textContent()).toContain(
      created?.requestId,
    );
    expect(navigations).toBe(0);
    expect(errors).toEqual([]);
  });

  it("filters the event log by type and by object id", async () => {
    const { server, createRequest } = await setup();
    const [one, two] = [await createRequest(), await createRequest()];
    server.retrievalRequests.releaseRecords(one, [
      { file_name: "records.pdf", file_type: "application/pdf", content: "%PDF-1.4\n%%EOF\n" },
    ]);
    server.retrievalRequests.setStatus(two, { status: "processing", stage: "provider_processing" });
    const { page, errors } = await open(server);
    const rows = page.locator("#events-body tbody tr");
    const objects = async () =>
      (await rows.locator("td:nth-child(3)").allTextContents()).sort().join(" ");
    await eventually(() => rows.count()).toBe(2);

    await page.getByLabel("Type", { exact: true }).selectOption(STATUS_CHANGED);
    await eventually(objects).toBe(two);
    await page.getByLabel("Type", { exact: true }).selectOption("");
    await page.getByLabel("Object or event id").fill(one);
    await eventually(() => rows.locator("td:nth-child(2)").allTextContents()).toEqual([
      "retrieval_request.documents_available",
    ]);
    expect(await page.locator("#events-body caption").textContent()).toBe("1 of 2 events");
    expect(errors).toEqual([]);
  });

  it("Release records, Open action request and Complete make the provider's moves the API then shows", async () => {
    const { server, mr, createRequest } = await setup();
    const id = await createRequest();
    const { page, errors } = await open(server);
    const request = card(page, id);
    await request.waitFor();

    await request.getByRole("button", { name: "Release records" }).click();
    await eventually(async () => (await mr.retrievalRequests.retrieve(id)).documents).toEqual([
      expect.objectContaining({ kind: "record", file_name: "records-1.pdf", ready: true }),
    ]);
    await eventually(() => request.locator(".timeline").textContent()).toContain("records-1.pdf");

    await request.getByLabel("Reason").selectOption("additional_information_needed");
    await request.getByLabel("Message").fill("Please send the signed release (fictional).");
    await request.getByRole("button", { name: "Open action request" }).click();
    await eventually(
      async () => (await mr.retrievalRequests.retrieve(id)).pending_action_request,
    ).toEqual(
      expect.objectContaining({
        reason: "additional_information_needed",
        message: "Please send the signed release (fictional).",
      }),
    );
    expect((await mr.retrievalRequests.retrieve(id)).status).toBe("action_required");
    // A second one cannot be opened while this one is: the button says so by being disabled.
    await eventually(() =>
      request.getByRole("button", { name: "Open action request" }).isDisabled(),
    ).toBe(true);

    await request.getByRole("button", { name: "Complete" }).click();
    await eventually(async () => (await mr.retrievalRequests.retrieve(id)).status).toBe(
      "completed",
    );
    await eventually(() => request.getByRole("button", { name: "Complete" }).isDisabled()).toBe(
      true,
    );
    // Records still arrive after a request closes, as the API accepts them: the button stays.
    await request.getByRole("button", { name: "Release records" }).click();
    await eventually(async () =>
      (await mr.retrievalRequests.retrieve(id)).documents.map((d) => d.file_name),
    ).toEqual(expect.arrayContaining(["records-1.pdf", "records-2.pdf"]));
    expect((await mr.retrievalRequests.retrieve(id)).status).toBe("completed");
    expect(errors).toEqual([]);
  });

  it("Advance clock moves the mock's clock, from the keyboard alone; a bad duration is refused on the page", async () => {
    const { server, mr } = await setup();
    const { page, errors } = await open(server);
    const by = page.getByLabel("Advance by", { exact: true });
    await by.focus();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("2h");
    await page.keyboard.press("Enter");
    const later = new Date(Date.parse(START) + 2 * 3_600_000).toISOString();
    // The API stamps each answer with the mock's clock.
    await eventually(async () =>
      (await mr.cases.list().withResponse()).response.headers.get("date"),
    ).toBe(new Date(later).toUTCString());
    await eventually(() => page.locator("#clock-now time").getAttribute("datetime")).toBe(later);

    await page.getByRole("button", { name: "Advance clock" }).focus();
    await by.fill("soon");
    await page.getByRole("button", { name: "Advance clock" }).press("Enter");
    await eventually(() => page.locator("#notice").textContent()).toMatch(/^Refused: .*duration/);
    expect(server.clock.now().toISOString()).toBe(later);
    // The browser logs the refusal's 400 itself; nothing else went wrong.
    expect(errors).toEqual([expect.stringMatching(/status of 400/)]);
  });

  it("Advance clock lets a failed delivery's retry fall due: the second attempt shows, and the page says when the mock stops", async () => {
    const { server, mr, createRequest } = await setup();
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(503).end(RECEIVER_BODY));
    });
    const port = await listenOn(receiver);
    onTestFinished(() => closeServer(receiver));
    const webhook = await mr.webhooks.create({
      name: "down receiver",
      url: `http://127.0.0.1:${port}/hooks`,
      events: [STATUS_CHANGED],
    });
    const id = await createRequest();
    server.retrievalRequests.setStatus(id, { status: "processing", stage: "provider_processing" });
    await server.deliveries.flush();
    const { page } = await open(server);
    const rows = page.locator(`article[data-webhook-id="${webhook.id}"] tbody tr`);
    await eventually(() => rows.count()).toBe(1);
    expect(await rows.first().locator("td:nth-child(8) time").getAttribute("datetime")).toBe(
      "2026-03-01T10:01:00.000Z",
    );

    await page.getByLabel("Advance by", { exact: true }).fill("1m");
    await page.getByRole("button", { name: "Advance clock" }).click();
    await eventually(() => rows.count()).toBe(2);
    expect(await rows.first().locator("td").nth(2).textContent()).toBe("2");
    expect(await rows.first().textContent()).toContain("The endpoint answered HTTP 503");
    const { results } = await mr.webhooks.listDeliveries(webhook.id);
    expect(results.map((d) => [d.attempt, d.status_code])).toEqual([
      [2, 503],
      [1, 503],
    ]);

    await server.close();
    await eventually(() => page.locator("#notice").textContent()).toContain("not answering");
  });

  it("Advance clock says what the window's deliveries came to, and each failure's cause in words: a refused signature names the receiver's clock", async () => {
    const { server, mr, createRequest } = await setup();
    // A receiver that refuses as createWebhookHandler does: 400 with its code, and nothing more.
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () =>
        res
          .writeHead(400, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "invalid_webhook" })),
      );
    });
    const port = await listenOn(receiver);
    onTestFinished(() => closeServer(receiver));
    const webhook = await mr.webhooks.create({
      name: "refusing receiver",
      url: `http://127.0.0.1:${port}/hooks`,
      events: [STATUS_CHANGED],
    });
    const id = await createRequest();
    const { page, errors } = await open(server);
    // Due inside the window: an event at +10 min, its retry at +11 min.
    server.clock.schedule(Date.parse(START) + 600_000, () =>
      server.retrievalRequests.setStatus(id, {
        status: "processing",
        stage: "provider_processing",
      }),
    );
    await page.getByLabel("Advance by", { exact: true }).fill("15m");
    await page.getByRole("button", { name: "Advance clock" }).click();
    const result = page.locator("#advance-result");
    await eventually(() => result.textContent()).toContain(
      "2 delivery attempts in the 15m window: 0 delivered, 2 failed.",
    );
    const cause = await result.locator("li").first().textContent();
    expect(cause).toContain("2 attempts: HTTP 400, the receiver answered invalid_webhook.");
    expect(cause).toContain("this machine's clock");
    expect(cause).toContain("remove any `now` option");
    expect(cause).not.toMatch(/^The endpoint answered HTTP 400$/);
    // The webhook's health as the API counts it: no event has failed all its attempts yet.
    const health = page.locator(`article[data-webhook-id="${webhook.id}"] .health`);
    await eventually(() => health.textContent()).toContain("consecutive_failures 0 of 5");
    expect(await health.textContent()).toContain(
      "last failed attempt 2026-03-01T10:11:00.000Z: HTTP 400",
    );
    expect((await mr.webhooks.retrieve(webhook.id)).consecutive_failures).toBe(0);
    expect(errors).toEqual([]);
  });

  it("is served by medrecords mock, whose real clock the page follows by itself", async () => {
    const { child, firstLine, exited } = await startCli([
      "mock",
      "--port",
      "0",
      "--json",
      "--speed",
      "60",
    ]);
    onTestFinished(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    const { inspector_url } = JSON.parse(firstLine) as { inspector_url: string };
    const context = await browser.newContext();
    onTestFinished(() => context.close());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(inspector_url);
    const clock = page.locator("#clock-now time");
    await clock.waitFor();
    expect(await page.locator("#clock-now").textContent()).toContain("(real time)");
    const first = Date.parse((await clock.getAttribute("datetime")) as string);
    // 60 times real time: a minute of mock time within about a second and a half.
    await eventually(
      async () => Date.parse((await clock.getAttribute("datetime")) as string) - first,
    ).toBeGreaterThan(60_000);
    expect(errors).toEqual([]);
    child.kill("SIGTERM");
    await expect(exited).resolves.toMatchObject({ code: 0 });
  });

  it("keeps the keyboard's place and typed text while the state changes under it", async () => {
    const { server, createRequest } = await setup();
    const id = await createRequest();
    const { page } = await open(server);
    const request = card(page, id);
    await request.waitFor();
    await request.getByLabel("Message").fill("Typed before the redraw");
    await request.getByRole("button", { name: "Release records" }).focus();
    server.retrievalRequests.setStatus(id, { status: "processing", stage: "provider_processing" });
    await eventually(() => request.locator(".status").textContent()).toBe("processing");
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.key)).toBe(
      `release:${id}`,
    );
    expect(await request.getByLabel("Message").inputValue()).toBe("Typed before the redraw");
  });

  it("shows a failed delivery attempt, and both attempts after Redeliver; the page holds neither the key nor the receiver's body", async () => {
    const { server, key, mr, createRequest } = await setup();
    let failing = true;
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(failing ? 500 : 200).end(RECEIVER_BODY));
    });
    const port = await listenOn(receiver);
    onTestFinished(() => closeServer(receiver));
    const webhook = await mr.webhooks.create({
      name: "local receiver",
      url: `http://127.0.0.1:${port}/hooks`,
      events: [STATUS_CHANGED],
    });
    const id = await createRequest();
    const opened = await open(server);
    const { page, errors } = opened;

    server.retrievalRequests.setStatus(id, { status: "processing", stage: "provider_processing" });
    await server.deliveries.flush();
    const rows = page.locator(`article[data-webhook-id="${webhook.id}"] tbody tr`);
    await eventually(() => rows.count()).toBe(1);
    const failed = await rows.first().textContent();
    expect(failed).toContain("failed");
    expect(failed).toContain("500");
    expect(failed).toContain("The endpoint answered HTTP 500");

    failing = false;
    await rows.first().getByRole("button", { name: "Redeliver" }).click();
    await eventually(() => rows.count()).toBe(2);
    const [redelivered, first] = [await rows.nth(0).textContent(), await rows.nth(1).textContent()];
    expect(redelivered).toContain("delivered");
    expect(redelivered).toContain("1 (redelivery)");
    expect(redelivered).toContain("200");
    expect(first).toContain("failed");
    expect(first).toContain("500");
    const { results } = await mr.webhooks.listDeliveries(webhook.id);
    expect(results.map((d) => [d.status_code, d.success, d.is_redelivery])).toEqual([
      [200, true, true],
      [500, false, false],
    ]);
    // The notice names the new delivery, not only the one redelivered.
    const [made, redone] = results.map((d) => d.id);
    await eventually(() => page.locator("#notice").textContent()).toBe(
      `Redelivered ${redone} as delivery ${made}.`,
    );

    const held = [
      await page.content(),
      await page.evaluate(() => JSON.stringify({ ...localStorage }) + document.cookie),
      ...(await opened.bodies()),
    ].join("\n");
    expect(held).toContain(webhook.id);
    for (const secret of [key, webhook.secret, RECEIVER_BODY]) expect(held).not.toContain(secret);
    expect(errors).toEqual([]);
  });
});

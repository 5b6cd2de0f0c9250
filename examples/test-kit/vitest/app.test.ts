/**
 * Testing the application of ../app.ts with `medrecords/testing` under
 * Vitest: the reference server inside MSW (msw 2 or 3), a seeded baseline
 * (a fictional client's case and the webhook to the app's receiver) brought
 * back after every test, each test seeding the retrieval request it needs,
 * and the PHI canary check on what the app logs and sends elsewhere.
 *
 * In this repository it runs with the unit tests, and under msw 2 in the
 * msw2 project (`npx vitest run examples/test-kit`).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MedRecords } from "medrecords";
import {
  captureLeaks,
  FICTIONAL_CLIENTS,
  type LeakCapture,
  PhiLeakError,
  useMockService,
} from "medrecords/testing";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AppOptions, createApp, listWaitingOnFirm, WEBHOOK_PATH } from "../app.js";

const client = FICTIONAL_CLIENTS[0]!;

let receiver: Server;
let app: ReturnType<typeof createApp>;
let appOptions: AppOptions;
let caseId = "";

const t = useMockService({
  hooks: { beforeAll, afterAll, afterEach },
  setupServer,
  // The mock's deliveries go to the app's real receiver on loopback: let MSW pass them.
  onUnhandledRequest: "bypass",
  allowPrivateWebhookUrls: true,
  // Each retrieval request created through the API lives a provider's life on the mock's clock.
  autopilot: true,
  // The baseline every test starts from: a fictional client's case, and the webhook to the app.
  async seed(mock, { apiKey }) {
    caseId = mock.seed.case(client).id;
    receiver = createServer();
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${WEBHOOK_PATH}`;
    const sdk = new MedRecords({ apiKey, baseUrl: mock.baseUrl, maxRetries: 0 });
    const webhook = await sdk.webhooks.create({
      name: "app receiver",
      url,
      events: ["retrieval_request.action_required"],
    });
    appOptions = { client: sdk, secret: webhook.secret, log: (line) => console.log(line) };
    app = createApp(appOptions);
    receiver.on("request", app.app);
  },
});
const sdk = () => new MedRecords({ apiKey: t.apiKey, baseUrl: t.baseUrl, maxRetries: 0 });

let capture: LeakCapture;
beforeAll(() => {
  // Everything the app logs or sends elsewhere than the API; quiet, so nothing reaches the console.
  capture = captureLeaks({ apiOrigins: [t.baseUrl], quiet: true });
});
afterEach(() => {
  app.tasks.length = 0;
  appOptions.unsafeLogClientNames = false;
  capture.clear();
});
afterAll(async () => {
  capture.stop();
  await new Promise((resolve) => receiver.close(resolve));
});

describe("the app under test", () => {
  it("turns an action_required delivery into a task, without PHI in its logs", async () => {
    const seeded = t.mock.seed.retrievalRequest(
      {
        case_id: caseId,
        status: "action_required",
        action_required_reason: "missing_hipaa_authorization",
        pending_action_request: { message: "Please sign the HIPAA authorization" },
      },
      { emit: true },
    );
    await t.mock.deliveries.flush();
    expect(app.tasks).toEqual([
      {
        retrieval_request_id: seeded.id,
        case_number: expect.stringMatching(/^MR-/),
        reason: "missing_hipaa_authorization",
        message: "Please sign the HIPAA authorization",
      },
    ]);
    // What the app sent to the API: the request, then its case.
    expect(t.mock.requests.map((r) => `${r.method} ${r.pathTemplate} ${r.status}`)).toEqual([
      "GET /v2/retrieval-requests/{retrieval_request_id} 200",
      "GET /v2/cases/{case_id} 200",
    ]);
    expect(capture.logs).toEqual([expect.stringMatching(/^Action needed on case MR-/)]);
    capture.assertNoLeaks();
  });

  it("starts from the baseline again: one case, no retrieval request, an empty journal", async () => {
    expect(t.mock.requests).toHaveLength(0);
    expect(await listWaitingOnFirm(sdk())).toEqual([]);
    const seeded = t.mock.seed.retrievalRequest({
      status: "action_required",
      action_required_reason: "payment_approval_required",
    });
    expect(await listWaitingOnFirm(sdk())).toEqual([seeded.id]);
  });

  it("catches the deliberate leak: a log line with the client's name fails the canary check", async () => {
    appOptions.unsafeLogClientNames = true;
    t.mock.seed.retrievalRequest(
      {
        case_id: caseId,
        status: "action_required",
        action_required_reason: "other",
        pending_action_request: { message: "Please confirm the date of injury" },
      },
      { emit: true },
    );
    await t.mock.deliveries.flush();
    expect(capture.logs).toHaveLength(1);
    expect(() => capture.assertNoLeaks()).toThrow(PhiLeakError);
    expect(() => capture.assertNoLeaks()).toThrow(/logs\[0\]: FICTIONAL_CLIENTS\[0\]\.client_name/);
  });

  it("follows a request through its whole life with one awaited advance: the app gets its action request, and it completes", async () => {
    const auth_form = await sdk().retrievalRequests.uploadFile({
      file: new TextEncoder().encode("%PDF-1.4\n%%EOF\n"),
      file_name: "authorization.pdf",
      file_type: "application/pdf",
    });
    const { id } = await sdk().retrievalRequests.create({
      case_id: caseId,
      facility_id: "fac_mercy_general",
      requestor: { name: "Paralegal", email: "paralegal@firm.example" },
      auth_form,
    });
    // Every delivery due in the 13 hours is made in time order, and answered, before this resolves.
    const { failed } = await t.advance("13h");
    expect(failed).toEqual([]);
    // The autopilot asks the firm something on the first request it runs.
    expect(app.tasks.map((task) => task.retrieval_request_id)).toEqual([id]);
    expect((await sdk().retrievalRequests.retrieve(id)).status).toBe("completed");
    capture.assertNoLeaks();
  });
});

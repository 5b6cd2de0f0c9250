/**
 * Testing the application of ../app.ts with `medrecords/testing` under Jest:
 * the reference server over real HTTP on loopback (no msw needed), its
 * lifecycle on Jest's global hooks, a seeded baseline brought back after every
 * test, and the PHI canary check catching a deliberate leak.
 *
 * Run: node node_modules/jest/bin/jest.js --config examples/test-kit/jest/jest.config.cjs
 * (`npm test` runs it through examples/test-kit/jest.test.ts).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, test } from "@jest/globals";
import { MedRecords } from "medrecords";
import { captureLeaks, FICTIONAL_CLIENTS, PhiLeakError, useMockService } from "medrecords/testing";
import { type AppOptions, createApp, listWaitingOnFirm, WEBHOOK_PATH } from "../app.js";

const client = FICTIONAL_CLIENTS[1]!;
let receiver: Server;
let app: ReturnType<typeof createApp>;
let appOptions: AppOptions;
let caseId = "";

// Jest's beforeAll/afterAll/afterEach are globals: useMockService finds them.
const t = useMockService({
  allowPrivateWebhookUrls: true,
  // Each retrieval request created through the API lives a provider's life on the mock's clock.
  autopilot: true,
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

let capture: ReturnType<typeof captureLeaks>;
beforeAll(() => {
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

const hipaa = () => ({
  case_id: caseId,
  status: "action_required" as const,
  action_required_reason: "missing_hipaa_authorization" as const,
  pending_action_request: { message: "Please sign the HIPAA authorization" },
});

test("an action_required delivery becomes a task, and nothing leaks", async () => {
  const seeded = t.mock.seed.retrievalRequest(hipaa(), { emit: true });
  await t.mock.deliveries.flush();
  expect(app.tasks.map((task) => [task.retrieval_request_id, task.reason])).toEqual([
    [seeded.id, "missing_hipaa_authorization"],
  ]);
  expect(t.mock.requests.map((r) => r.pathTemplate)).toEqual([
    "/v2/retrieval-requests/{retrieval_request_id}",
    "/v2/cases/{case_id}",
  ]);
  capture.assertNoLeaks();
});

test("each test starts from the seeded baseline", async () => {
  expect(await listWaitingOnFirm(sdk())).toEqual([]);
  const seeded = t.mock.seed.retrievalRequest(hipaa());
  expect(await listWaitingOnFirm(sdk())).toEqual([seeded.id]);
});

test("the canary check catches the deliberate leak of the client's name", async () => {
  appOptions.unsafeLogClientNames = true;
  t.mock.seed.retrievalRequest(hipaa(), { emit: true });
  await t.mock.deliveries.flush();
  expect(() => capture.assertNoLeaks()).toThrow(PhiLeakError);
  expect(() => capture.assertNoLeaks()).toThrow(/FICTIONAL_CLIENTS\[1\]\.client_name/);
});

test("follows a request through its whole life with one awaited advance: the app gets its action request, and it completes", async () => {
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

/**
 * Takes docs/inspector.png: the built package's reference server with a few
 * fictional retrieval requests, a webhook whose first delivery failed and was
 * redelivered, and the inspector open in Debian's Chromium (playwright-core).
 *
 * Usage: npm run build && node scripts/inspector-screenshot.ts
 * Environment: CHROMIUM, the browser binary (default /usr/bin/chromium).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { MedRecords } from "medrecords";
import { startMockServer } from "medrecords/mock";
import { chromium } from "playwright-core";

const server = await startMockServer({
  now: "2026-03-02T09:00:00.000Z",
  allowPrivateWebhookUrls: true,
});
let failing = true;
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(failing ? 500 : 200).end());
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/medrecords`;

const mr = new MedRecords({
  apiKey: server.apiKeys.create(),
  baseUrl: server.url,
  logLevel: "off",
});
const webhook = await mr.webhooks.create({
  name: "local receiver",
  url: receiverUrl,
  events: ["retrieval_request.status_changed", "retrieval_request.documents_available"],
});
const create = async (client_name: string, facility_id: string) => {
  const auth_form = await mr.retrievalRequests.uploadFile({
    file: new TextEncoder().encode("%PDF-1.4\n%%EOF\n"),
    file_name: "authorization.pdf",
    file_type: "application/pdf",
  });
  return (
    await mr.retrievalRequests.create({
      case: { title: `${client_name} v. Example Co. (fictional)`, client_name },
      facility_id,
      requestor: { name: "Pat Paralegal", email: "pat@firm.example" },
      auth_form,
    })
  ).id;
};
const first = await create("Jane Doe", "fac_mercy_general");
server.clock.advance("20m");
server.retrievalRequests.setStatus(first, { status: "processing", stage: "provider_processing" });
await server.deliveries.flush();
failing = false;
server.clock.advance("1m");
await server.deliveries.flush();
server.clock.advance("40m");
server.retrievalRequests.openActionRequest(first, {
  reason: "additional_information_needed",
  message: "Please confirm the treatment dates.",
});
const second = await create("John Roe", "fac_mercy_general");
server.clock.advance("35m");
server.retrievalRequests.releaseRecords(second, [
  { file_name: "records-1.pdf", file_type: "application/pdf", content: "%PDF-1.4\n%%EOF\n" },
]);
server.retrievalRequests.complete(second);
await server.deliveries.flush();
const [latest] = (await mr.webhooks.listDeliveries(webhook.id)).results;
if (latest !== undefined) await mr.webhooks.redeliver(webhook.id, latest.id);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
  ],
});
const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
await page.goto(server.inspectorUrl);
await page.locator("#deliveries-body table").waitFor();
await page.screenshot({ path: "docs/inspector.png", fullPage: true });
await browser.close();
receiver.close();
await server.close();
console.log("wrote docs/inspector.png");

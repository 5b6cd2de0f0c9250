/**
 * A reference server over HTTP (`startMockServer`) whose event log holds
 * `events` events, for bench/suites/pagination.ts and poller.ts.
 *
 * Seeding goes through the service object in-process, the public
 * `server.retrievalRequests.setStatus` (what `POST /__mock/retrieval-requests/{id}/status`
 * calls), one `retrieval_request.status_changed` per call, with the mock clock
 * moved 1 ms between events: 100 000 events take a few seconds, where as many
 * control-API requests would take a minute.
 */
import { MedRecords } from "medrecords";
import { startMockServer } from "medrecords/mock";

export interface SeededServer {
  baseUrl: string;
  apiKey: string;
  /** Events in the log: the seeded ones and any that creating their retrieval request logged. */
  total: number;
  /** Seconds the seeding took. */
  seedSeconds: number;
  close(): Promise<void>;
}

const PDF = "%PDF-1.7\n% bench\n";

export async function startSeededServer(events: number): Promise<SeededServer> {
  const server = await startMockServer({ now: "2026-03-01T09:00:00Z", delivery: "inbox" });
  try {
    const apiKey = server.apiKeys.create();
    const mr = new MedRecords({ apiKey, baseUrl: server.url });
    const auth_form = await mr.retrievalRequests.uploadFile({
      file: new TextEncoder().encode(PDF),
      file_name: "authorization.pdf",
      file_type: "application/pdf",
    });
    const request = await mr.retrievalRequests.create({
      case: { title: "Doe v. Acme", client_name: "Jane Doe", date_of_injury: "2025-06-02" },
      facility: { name: "Harbor Clinic", address: "1 Pier St, Bay City, CA 94000" },
      requestor: { name: "Ann Counsel", email: "ann@firm.example" },
      auth_form,
      record_types: ["medical_records"],
    });
    // Creating the request may have logged events of its own: count them in.
    const before = (await mr.events.list({ limit: 100 })).results.length;
    const started = performance.now();
    for (let i = 0; i < events; i++) {
      server.clock.advance(1);
      server.retrievalRequests.setStatus(request.id, {
        status: "processing",
        stage: "provider_processing",
      });
    }
    const seedSeconds = (performance.now() - started) / 1000;
    return {
      baseUrl: server.url,
      apiKey,
      total: before + events,
      seedSeconds,
      close: () => server.close(),
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

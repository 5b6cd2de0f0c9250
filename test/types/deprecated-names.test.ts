// Renamed for what a user would guess (issue 27); the old names stay, deprecated,
// for one minor version, and mean exactly what the new ones do.
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type Event,
  Event as EventSchema,
  type EventType,
  type LogEvent,
  LogEvent as LogEventSchema,
  type LogEventType,
  MedRecords,
} from "../../src/index.js";

describe("deprecated names", () => {
  it("Event is LogEvent: the same schema and the same type", () => {
    expect(EventSchema).toBe(LogEventSchema);
    expectTypeOf<Event>().toEqualTypeOf<LogEvent>();
    expectTypeOf<EventType>().toEqualTypeOf<LogEventType>();
  });

  it("download and downloadDocument are the address calls under their old names", () => {
    const mr = new MedRecords({ apiKey: "medrecords_sk_live_x", baseUrl: "https://api.test" });
    expectTypeOf(mr.documents.download).toEqualTypeOf(mr.documents.downloadUrl);
    expectTypeOf(mr.retrievalRequests.downloadDocument).toEqualTypeOf(
      mr.retrievalRequests.documentDownloadUrl,
    );
  });
});

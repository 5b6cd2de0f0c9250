/** Action-response rules 1 to 6 on the reference server, each at its boundary. */
import { describe, expect, it } from "vitest";
import type {
  ActionRequestAnswer,
  RetrievalRequest,
} from "../../src/schemas/retrieval-requests.js";
import { expectError, REQUEST_ID, setup } from "./helpers.js";
import {
  caseUpload,
  createRetrieval,
  EVENT_ID,
  eventsOf,
  retrievalUpload,
} from "./retrieval-helpers.js";

async function withOpenRequest(
  open: { requires_attachment?: boolean; requires_pdf?: boolean; reason?: string } = {},
) {
  const ctx = setup();
  const r = await createRetrieval(ctx.mock, ctx.api);
  const actionRequest = ctx.mock.retrievalRequests.openActionRequest(r.id, {
    message: "Please confirm the date of injury.",
    reason: "additional_information_needed",
    ...open,
  } as Parameters<typeof ctx.mock.retrievalRequests.openActionRequest>[1]);
  const path = `/v2/retrieval-requests/${r.id}/action-response`;
  const answer = (body: unknown) => ctx.api.post<ActionRequestAnswer>(path, body);
  const current = async () =>
    (await ctx.api.get<RetrievalRequest>(`/v2/retrieval-requests/${r.id}`)).body;
  return { ...ctx, r, actionRequest, answer, current };
}

describe("action-response message (rule 2)", () => {
  it("accepts exactly 10000 characters", async () => {
    const { answer, actionRequest, r } = await withOpenRequest();
    const response = await answer({ message: "x".repeat(10_000) });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id: actionRequest.id,
      retrieval_request_id: r.id,
      status: "responded",
      responded_at: expect.any(String),
    });
  });

  it("10001 characters is 400 validation_error and leaves the action request open", async () => {
    const { answer, current, actionRequest } = await withOpenRequest();
    const message = expectError(
      await answer({ message: "x".repeat(10_001) }),
      400,
      "validation_error",
    );
    expect(message).toMatch(/message: Must be at most 10000 characters after trimming/);
    expect((await current()).pending_action_request?.id).toBe(actionRequest.id);
  });

  it("measures after trimming: 10000 characters inside whitespace pass, 10001 inside whitespace fail", async () => {
    const { answer } = await withOpenRequest();
    expectError(await answer({ message: `  ${"x".repeat(10_001)}\n\t` }), 400, "validation_error");
    expect((await answer({ message: `  ${"x".repeat(10_000)}\n\t` })).status).toBe(200);
  });

  it("an empty or whitespace-only message is 400 validation_error", async () => {
    const { answer, current } = await withOpenRequest();
    for (const message of ["", "   ", "\n\t "]) {
      expect(expectError(await answer({ message }), 400, "validation_error")).toMatch(
        /message: Must not be empty after trimming whitespace/,
      );
    }
    expect((await current()).status).toBe("action_required");
  });

  it("a bad message is validation_error even when nothing is open", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api);
    const path = `/v2/retrieval-requests/${r.id}/action-response`;
    expectError(await api.post(path, { message: " " }), 400, "validation_error");
    expectError(await api.post(path, { message: "ok" }), 400, "action_response_rejected");
  });

  it("stores the message trimmed", async () => {
    const { mock, r, answer } = await withOpenRequest();
    expect((await answer({ message: "  x  " })).status).toBe(200);
    const [recorded] = mock.retrievalRequests.actionRequests(r.id);
    expect(recorded?.responses.map((a) => a.message)).toEqual(["x"]);
  });

  it("a missing or non-string message is a validation error, not a rejection", async () => {
    const { answer } = await withOpenRequest();
    expectError(await answer({}), 400, "validation_error");
    expectError(await answer({ message: 5 }), 400, "validation_error");
    expectError(await answer({ message: "ok", requester_email: "nope" }), 400, "validation_error");
    expectError(await answer({ message: "ok", extra: true }), 400, "validation_error");
  });
});

describe("which action request is answered (rule 1)", () => {
  it("rejects an answer when nothing is open, before and after one was answered", async () => {
    const { mock, api } = setup();
    const r = await createRetrieval(mock, api);
    const path = `/v2/retrieval-requests/${r.id}/action-response`;
    expect(
      expectError(await api.post(path, { message: "hello" }), 400, "action_response_rejected"),
    ).toMatch(/no open action request/);
    mock.retrievalRequests.openActionRequest(r.id, { message: "?", reason: "other" });
    expect((await api.post(path, { message: "answer" })).status).toBe(200);
    expectError(await api.post(path, { message: "again" }), 400, "action_response_rejected");
    expectError(
      await api.post("/v2/retrieval-requests/ret_missing/action-response", { message: "x" }),
      404,
      "not_found",
    );
  });

  it("an accepted answer closes it: processing, no pending request, a later public_updated_at, status_changed with the call's request id", async () => {
    const { mock, r, answer, current } = await withOpenRequest();
    const before = await current();
    expect(before).toMatchObject({
      status: "action_required",
      action_required_reason: "additional_information_needed",
    });
    const response = await answer({ message: "Injury was on 2025-03-04." });
    const after = await current();
    expect(after).toMatchObject({
      status: "processing",
      action_required_reason: null,
      pending_action_request: null,
    });
    expect(Date.parse(after.public_updated_at)).toBeGreaterThan(
      Date.parse(before.public_updated_at),
    );
    expect(response.body.responded_at).toBe(after.public_updated_at);
    const last = eventsOf(mock, r.id).at(-1)!;
    expect(last).toMatchObject({
      type: "retrieval_request.status_changed",
      request_id: response.headers.get("x-request-id"),
      data: {
        retrieval_request_id: r.id,
        case_id: r.case_id,
        public_updated_at: after.public_updated_at,
        status: "processing",
        stage: after.stage,
        action_required_reason: null,
      },
    });
    expect(last.request_id).toMatch(REQUEST_ID);
    expect(last.id).toMatch(EVENT_ID);
  });

  it("the retry after a refused message succeeds", async () => {
    const { answer, current } = await withOpenRequest();
    expectError(await answer({ message: " " }), 400, "validation_error");
    expect((await answer({ message: "Here it is." })).status).toBe(200);
    expect((await current()).pending_action_request).toBeNull();
  });
});

describe("the responder (rule 3)", () => {
  it("is requester_email when given, else the API key's identity", async () => {
    const { mock, r, api, answer } = await withOpenRequest();
    await answer({ message: "first", requester_email: "paralegal@firm.example" });
    mock.retrievalRequests.openActionRequest(r.id, {
      message: "Still unclear.",
      reason: "additional_information_needed",
    });
    await answer({ message: "second" });
    const [recorded] = mock.retrievalRequests.actionRequests(r.id);
    expect(recorded?.opening).toBe(2);
    const [first, second] = recorded!.responses;
    expect(first).toMatchObject({
      responder: "paralegal@firm.example",
      requester_email: "paralegal@firm.example",
    });
    expect(second?.requester_email).toBeNull();
    expect(second?.responder).toMatch(/^key_/);
    expect(second?.responder).toBe(second?.api_key_id);
    // A webhook records its creator with the same key identity.
    const hook = await api.post<{ id: string }>("/v2/webhooks", {
      name: "h",
      url: "https://hooks.example.test/h",
      events: ["retrieval_request.status_changed"],
    });
    const listed = await api.get<{ id: string; created_by: string }[]>("/v2/webhooks");
    expect(listed.body.find((w) => w.id === hook.body.id)?.created_by).toBe(second?.responder);
  });
});

describe("attachments (rules 4 to 6)", () => {
  it("a required attachment must be there", async () => {
    const { answer, current } = await withOpenRequest({ requires_attachment: true });
    expect(
      expectError(await answer({ message: "see attached" }), 400, "action_response_rejected"),
    ).toMatch(/must be answered with an attachment/);
    expect((await current()).pending_action_request).not.toBeNull();
  });

  it("a missing HIPAA authorization needs a signed PDF: file type and %PDF- bytes", async () => {
    const { mock, api, r, answer, current } = await withOpenRequest({
      reason: "missing_hipaa_authorization",
    });
    expect((await current()).pending_action_request).toMatchObject({
      requires_attachment: true,
      requires_pdf: true,
    });
    expect(
      expectError(await answer({ message: "signed" }), 400, "action_response_rejected"),
    ).toMatch(/signed PDF/);
    const png = await caseUpload(mock, api, r.case_id!, {
      file_type: "image/png",
      content: "%PDF-",
    });
    expect(
      expectError(
        await answer({ message: "signed", attachment: { upload_id: png } }),
        400,
        "action_response_rejected",
      ),
    ).toMatch(/PDF/);
    const fake = await caseUpload(mock, api, r.case_id!, { content: "not a pdf" });
    expectError(
      await answer({ message: "signed", attachment: { upload_id: fake } }),
      400,
      "action_response_rejected",
    );
    // Rejected answers consumed nothing: the same upload is refused for the same reason again.
    expectError(
      await answer({ message: "signed", attachment: { upload_id: fake } }),
      400,
      "action_response_rejected",
    );
    const pdf = await caseUpload(mock, api, r.case_id!, {
      file_type: "Application/PDF; charset=binary",
    });
    const accepted = await answer({ message: "signed", attachment: { upload_id: pdf } });
    expect(accepted.status).toBe(200);
    const [recorded] = mock.retrievalRequests.actionRequests(r.id);
    expect(recorded?.responses[0]?.attachment).toMatchObject({
      upload_id: pdf,
      file_name: "answer.pdf",
    });
  });

  it("the attachment must be a case-level upload under the request's case, usable and not used", async () => {
    const { mock, api, r, answer, current } = await withOpenRequest({ requires_attachment: true });
    const retrievalLevel = await retrievalUpload(mock, api);
    const other = await api.post<{ id: string }>("/v2/cases", { title: "Other", client_name: "X" });
    const foreign = await caseUpload(mock, api, other.body.id);
    for (const upload_id of [retrievalLevel, foreign, "00000000-0000-4000-8000-000000000000"]) {
      expect(
        expectError(
          await answer({ message: "here", attachment: { upload_id } }),
          400,
          "action_response_rejected",
        ),
      ).toMatch(/attachment\.upload_id: .*\(upload_not_found\)/);
    }
    const late = await caseUpload(mock, api, r.case_id!);
    mock.clock.advance(3_600_001);
    expect(
      expectError(
        await answer({ message: "here", attachment: { upload_id: late } }),
        400,
        "action_response_rejected",
      ),
    ).toMatch(/upload_expired/);
    expect((await current()).pending_action_request).not.toBeNull();
    const good = await caseUpload(mock, api, r.case_id!);
    expect((await answer({ message: "here", attachment: { upload_id: good } })).status).toBe(200);
    // Consumed: a second answer with it is refused for that reason.
    mock.retrievalRequests.openActionRequest(r.id, { message: "again", reason: "other" });
    expect(
      expectError(
        await answer({ message: "here", attachment: { upload_id: good } }),
        400,
        "action_response_rejected",
      ),
    ).toMatch(/upload_consumed/);
  });

  it("an optional attachment of any type is accepted", async () => {
    const { mock, api, r, answer } = await withOpenRequest();
    const note = await caseUpload(mock, api, r.case_id!, {
      file_type: "text/plain",
      content: "hi",
    });
    expect((await answer({ message: "fyi", attachment: { upload_id: note } })).status).toBe(200);
  });
});

/** A retrieval request filed through the client as a user files one: the authorization uploaded, then the request. */
import type { MedRecords } from "../../src/index.js";

const PDF = new TextEncoder().encode("%PDF-1.4\n%%EOF\n");

/** Files a retrieval request on a new fictional case at a seeded facility; resolves to its id. */
export async function fileRetrievalRequest(mr: MedRecords): Promise<string> {
  const auth_form = await mr.retrievalRequests.uploadFile({
    file: PDF,
    file_name: "authorization.pdf",
    file_type: "application/pdf",
  });
  const { id } = await mr.retrievalRequests.create({
    case: { title: "Doe v. Acme (fictional)", client_name: "Jane Doe" },
    facility_id: "fac_mercy_general",
    requestor: { name: "Paralegal", email: "paralegal@firm.example" },
    auth_form,
  });
  return id;
}

// A minimal service in its own process for memory measurements: it signs,
// counts the bytes of each PUT without keeping them, and creates documents.
// Run as `node test/helpers/upload-sink.ts`; prints its port.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

const received = new Map<string, { bytes: number; type: string; declared: number }>();

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json", "x-request-id": "req_sink" });
    res.end(JSON.stringify(body));
  };
  const chunks: Buffer[] = [];
  let bytes = 0;
  req.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (req.method !== "PUT") chunks.push(chunk);
  });
  req.on("end", () => {
    const { port } = server.address() as { port: number };
    if (req.method === "POST" && url.pathname.endsWith("/sign-upload")) {
      const id = randomUUID();
      return send(200, {
        upload_id: id,
        upload_url: `http://127.0.0.1:${port}/put/${id}`,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
    }
    if (req.method === "PUT" && url.pathname.startsWith("/put/")) {
      if (req.headers.authorization)
        return send(400, { error: { code: "authorization_sent", message: "" } });
      received.set(url.pathname.slice(5), {
        bytes,
        type: String(req.headers["content-type"]),
        declared: Number(req.headers["content-length"]),
      });
      return send(200, {});
    }
    if (req.method === "POST" && url.pathname.endsWith("/documents")) {
      const { upload_id } = JSON.parse(Buffer.concat(chunks).toString()) as { upload_id: string };
      const upload = received.get(upload_id);
      if (!upload || upload.bytes !== upload.declared)
        return send(400, { error: { code: "upload_incomplete", message: "" } });
      const now = new Date().toISOString();
      return send(201, {
        id: `doc_${upload_id}`,
        case_id: "case_1",
        file_name: "big.bin",
        file_size: upload.bytes,
        file_type: upload.type,
        path: null,
        archived: false,
        created_at: now,
        updated_at: now,
      });
    }
    send(404, { error: { code: "not_found", message: "" } });
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));

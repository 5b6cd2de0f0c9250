/**
 * A time-stamping authority on loopback, made with the `openssl` CLI: a
 * throw-away root CA, a TSA certificate it issued (extended key usage
 * timeStamping, critical, as RFC 3161 requires), and a tiny node:http server
 * that answers each posted query with `openssl ts -reply`. Tests need no
 * internet, and the tokens can be checked with `openssl ts -verify` too.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface TestTsa {
  /** The address to POST queries to. */
  url: string;
  /** The root CA's certificate (PEM): what a firm would pass as `trust`. */
  caPem: string;
  caFile: string;
  /** The TSA's own certificate (PEM). */
  tsaPem: string;
  /** Queries answered so far. */
  readonly answered: number;
  /** While true, the server answers 503: a TSA that is down. */
  failing: boolean;
  /** Runs `openssl ts -verify` on a reply (DER) for `hashHex`; resolves with its output, or rejects. */
  opensslVerify(reply: Uint8Array, hashHex: string, caFile?: string): Promise<string>;
  close(): Promise<void>;
}

const TSA_CONFIG = (dir: string) => `
[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
dir = ${dir}
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.pem
certs = $dir/ca.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256
accuracy = secs:1
ordering = yes
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

/** A throw-away CA (`CN=<name> Root`) in `dir`: ca.key, ca.pem. */
export async function makeCa(dir: string, name = "Test TSA"): Promise<string> {
  await run("openssl", [
    ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"],
    ...["-keyout", join(dir, "ca.key"), "-out", join(dir, "ca.pem")],
    ...["-subj", `/CN=${name} Root`],
    ...["-addext", "basicConstraints=critical,CA:TRUE"],
    ...["-addext", "keyUsage=critical,keyCertSign,cRLSign"],
  ]);
  return join(dir, "ca.pem");
}

/**
 * Starts a test TSA. `tsaDays: 0` gives its certificate a validity that ends
 * the second it was issued, so every token it signs is from after it expired.
 */
export async function startTestTsa(options: { tsaDays?: number } = {}): Promise<TestTsa> {
  const dir = mkdtempSync(join(tmpdir(), "medrecords-tsa-"));
  const caFile = await makeCa(dir);
  await run("openssl", [
    ...["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=Test TSA"],
    ...["-keyout", join(dir, "tsa.key"), "-out", join(dir, "tsa.csr")],
  ]);
  writeFileSync(
    join(dir, "tsa.ext"),
    "extendedKeyUsage=critical,timeStamping\nkeyUsage=critical,digitalSignature,nonRepudiation\n",
  );
  await run("openssl", [
    ...["x509", "-req", "-in", join(dir, "tsa.csr"), "-CA", caFile, "-CAkey", join(dir, "ca.key")],
    ...["-CAcreateserial", "-days", String(options.tsaDays ?? 2), "-extfile", join(dir, "tsa.ext")],
    ...["-out", join(dir, "tsa.pem")],
  ]);
  writeFileSync(join(dir, "serial"), "01\n");
  writeFileSync(join(dir, "tsa.cnf"), TSA_CONFIG(dir));
  let answered = 0;
  let count = 0;
  const state = { failing: false };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", async () => {
      if (state.failing) {
        response.writeHead(503).end();
        return;
      }
      const n = ++count;
      const query = join(dir, `q${n}.tsq`);
      const reply = join(dir, `r${n}.tsr`);
      writeFileSync(query, Buffer.concat(chunks));
      try {
        await run("openssl", [
          ...["ts", "-reply", "-config", join(dir, "tsa.cnf"), "-queryfile", query],
          ...["-out", reply],
        ]);
        answered++;
        response.writeHead(200, { "content-type": "application/timestamp-reply" });
        response.end(readFileSync(reply));
      } catch (error) {
        response.writeHead(500).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/tsr`,
    caPem: readFileSync(caFile, "utf8"),
    caFile,
    tsaPem: readFileSync(join(dir, "tsa.pem"), "utf8"),
    get answered() {
      return answered;
    },
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    async opensslVerify(replyDer, hashHex, ca = caFile) {
      const file = join(dir, `verify-${crypto.randomUUID()}.tsr`);
      writeFileSync(file, replyDer);
      const { stdout, stderr } = await run("openssl", [
        ...["ts", "-verify", "-digest", hashHex, "-in", file, "-CAfile", ca],
      ]);
      return stdout + stderr;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

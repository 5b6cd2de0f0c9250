/**
 * RFC 3161 time-stamping: the request for a checkpoint, and the reading and
 * verification of its token. The ASN.1 and CMS work is pkijs's (with its
 * asn1js), loaded only here, and this module only when a TSA is configured
 * or a checkpoint is verified: a client without either carries none of it.
 */
import type { TsaOptions } from "./checkpoint.js";

const SHA256 = "2.16.840.1.101.3.4.2.1";
const SIGNED_DATA = "1.2.840.113549.1.7.2";
const TST_INFO = "1.2.840.113549.1.9.16.1.4";
const EXT_KEY_USAGE = "2.5.29.37";
const TIME_STAMPING = "1.3.6.1.5.5.7.3.8";

async function libraries() {
  const [asn1js, pkijs] = await Promise.all([import("asn1js"), import("pkijs")]);
  return { asn1js, pkijs };
}

const hex = (bytes: ArrayBuffer | Uint8Array) =>
  Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
const fromHex = (text: string) =>
  Uint8Array.from(text.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));

/** What a token says: its time and message imprint (SHA-256, hex), and the nonce it answers. */
export interface TimestampFacts {
  time: Date;
  imprint: string;
  nonce: string | undefined;
}

/**
 * Asks the TSA at `tsa.url` for a token over `hashHex` (already a SHA-256
 * digest: the message imprint is those 32 bytes), with a fresh nonce and the
 * TSA's certificate included. Resolves with the TSA's reply (DER) and the
 * token's time, once the reply is granted and answers this very request.
 */
export async function requestTimestamp(
  tsa: TsaOptions,
  hashHex: string,
): Promise<{ token: Uint8Array; time: Date }> {
  const { asn1js, pkijs } = await libraries();
  const nonce = crypto.getRandomValues(new Uint8Array(8));
  nonce[0] = (nonce[0]! & 0x7f) | 0x01; // positive, no leading zero: its DER is these bytes
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: fromHex(hashHex) }),
    }),
    nonce: new asn1js.Integer({ valueHex: nonce }),
    certReq: true,
  });
  const response = await fetch(tsa.url, {
    method: "POST",
    headers: { "content-type": "application/timestamp-query" },
    body: new Uint8Array(request.toSchema().toBER()),
    signal: AbortSignal.timeout(tsa.timeoutMs ?? 10_000),
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`the TSA at ${new URL(tsa.url).origin} answered HTTP ${response.status}`);
  }
  const token = new Uint8Array(await response.arrayBuffer());
  const facts = await readTimestamp(token);
  if (facts.imprint !== hashHex) throw new Error("the TSA's token is for another hash");
  if (facts.nonce !== hex(nonce)) throw new Error("the TSA's token does not answer this request");
  return { token, time: facts.time };
}

/** Parses a TSA's reply (TimeStampResp, DER); throws when it is not a granted token. */
export async function readTimestamp(der: Uint8Array): Promise<TimestampFacts> {
  const { tst } = await parse(der);
  const imprint = tst.messageImprint;
  if (imprint.hashAlgorithm.algorithmId !== SHA256) {
    throw new Error(`its message imprint is not SHA-256 (${imprint.hashAlgorithm.algorithmId})`);
  }
  return {
    time: tst.genTime,
    imprint: hex(imprint.hashedMessage.valueBlock.valueHexView),
    nonce: tst.nonce === undefined ? undefined : hex(tst.nonce.valueBlock.valueHexView),
  };
}

async function parse(der: Uint8Array) {
  const { pkijs } = await libraries();
  const response = pkijs.TimeStampResp.fromBER(der.slice());
  const status = response.status.status;
  // 0 granted, 1 granted with modifications.
  if (status !== 0 && status !== 1) {
    throw new Error(`the TSA refused the request (PKIStatus ${status})`);
  }
  const token = response.timeStampToken;
  if (token?.contentType !== SIGNED_DATA) throw new Error("the reply holds no time-stamp token");
  const signed = new pkijs.SignedData({ schema: token.content });
  if (signed.encapContentInfo.eContentType !== TST_INFO || !signed.encapContentInfo.eContent) {
    throw new Error("the token does not hold a TSTInfo");
  }
  const tst = pkijs.TSTInfo.fromBER(signed.encapContentInfo.eContent.getValue());
  return { pkijs, signed, tst };
}

/**
 * Why the token `der` does not witness `canonical` (the canonical form of
 * the checkpointed entry, whose SHA-256 is the entry's `hash` and must be the
 * token's imprint) under the trust roots `trust` (PEM certificates: the
 * TSA's root, or the TSA's own): its signature, its signer's chain to one of
 * them with every certificate valid at the token's time, and the signer's
 * extended key usage, timeStamping. Undefined when it does.
 */
export async function untrustedReason(
  der: Uint8Array,
  canonical: string,
  trust: readonly string[],
): Promise<string | undefined> {
  const { pkijs, signed, tst } = await parse(der);
  const trustedCerts = trust.flatMap((pem) => pemCertificates(pkijs, pem));
  const data = new TextEncoder().encode(canonical).buffer as ArrayBuffer;
  type Result = { signatureVerified?: boolean | null; signerCertificate?: Certificate };
  type Certificate = InstanceType<typeof pkijs.Certificate>;
  const verify = async (checkChain: boolean): Promise<Result | string> => {
    try {
      const options = { signer: 0, data, trustedCerts, checkChain, extendedMode: true as const };
      const result = (await signed.verify(options)) as Result | boolean;
      if (typeof result === "boolean" || result.signatureVerified !== true) {
        return "its signature does not verify";
      }
      return result;
    } catch (error) {
      return (error as { message?: string }).message ?? String(error);
    }
  };
  // The signature first; then the signer's chain, unless the signer is itself one of the roots given.
  const signature = await verify(false);
  if (typeof signature === "string") return signature;
  const signer = signature.signerCertificate as Certificate;
  const direct = trustedCerts.some((c) => sameBytes(c.tbsView, signer.tbsView));
  if (direct) {
    if (signer.notBefore.value > tst.genTime || signer.notAfter.value < tst.genTime) {
      return "its signer's certificate was not valid at the token's time";
    }
  } else {
    const chained = await verify(true);
    if (typeof chained === "string") return chained;
  }
  return timeStampingFault(signer);
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);

/** RFC 3161 §2.3: the signer's certificate has one extended key usage, timeStamping, critical. */
export function timeStampingFault(certificate: {
  extensions?: { extnID: string; critical: boolean; parsedValue?: unknown }[];
}): string | undefined {
  const extension = certificate.extensions?.find((e) => e.extnID === EXT_KEY_USAGE);
  const purposes = (extension?.parsedValue as { keyPurposes?: string[] } | undefined)?.keyPurposes;
  if (extension === undefined || !purposes?.includes(TIME_STAMPING)) {
    return "its signer's certificate is not for time-stamping (no timeStamping extended key usage)";
  }
  if (!extension.critical || purposes.length !== 1) {
    return "its signer's certificate's extended key usage is not timeStamping alone, critical (RFC 3161)";
  }
  return undefined;
}

function pemCertificates(pkijs: typeof import("pkijs"), pem: string) {
  const blocks = [
    ...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g),
  ];
  if (blocks.length === 0)
    throw new TypeError("verifyCustodyLog: `trust` holds a text that is not a PEM certificate.");
  return blocks.map((block) => {
    const der = Uint8Array.from(atob((block[1] ?? "").replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    return pkijs.Certificate.fromBER(der);
  });
}

const TYPES: Record<string, string> = {
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  tif: "image/tiff",
  tiff: "image/tiff",
  gif: "image/gif",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  xml: "application/xml",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  zip: "application/zip",
};

/**
 * A `File` backed by a file on disk: read as it is sent, never loaded whole.
 * The type is guessed from the extension unless given. Node, Bun and Deno only.
 *
 * @example await mr.cases.uploadDocument(caseId, { file: await fileFromPath("./hipaa.pdf") })
 */
export async function fileFromPath(path: string, options: { type?: string } = {}): Promise<File> {
  // Loaded on use so that browser and Worker bundles never see node:fs.
  const { openAsBlob } = await import("node:fs");
  const name = path.split(/[\\/]/).pop() ?? path;
  const ext = name.includes(".") ? name.split(".").pop()!.toLowerCase() : "";
  const type = options.type ?? TYPES[ext] ?? "application/octet-stream";
  const blob = await openAsBlob(path, { type });
  return new File([blob], name, { type });
}

/**
 * The inspector's files (src/inspector/), served under `/__mock/ui` behind the
 * control API's guard. They are bundled when the package is built
 * (tsup.config.ts) and when the tests run (vitest.config.ts), both through
 * scripts/inspector-asset.ts, which replaces `__MEDRECORDS_INSPECTOR__` with
 * them: the package carries them as strings and reads no file at run time.
 *
 * The page loads nothing from another origin, and its Content-Security-Policy
 * says so to the browser: scripts, styles and requests from this origin only,
 * no inline script, no frame around it (its buttons change the mock's state).
 */

/** The built files as JSON; undefined when the sources run without the build (e.g. plain `node src/...`). */
declare const __MEDRECORDS_INSPECTOR__: string | undefined;

interface Built {
  html: string;
  js: string;
  css: string;
  icon: string;
}

let built: Built | undefined;

/** Where the page is, under the API's origin. */
export const INSPECTOR_PATH = "/__mock/ui";

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const FILES = {
  "": ["html", "text/html; charset=utf-8"],
  "/inspector.js": ["js", "text/javascript; charset=utf-8"],
  "/inspector.css": ["css", "text/css; charset=utf-8"],
  // Else the browser asks for /favicon.ico, an API path: a 401 in the console and in the journal.
  "/favicon.svg": ["icon", "image/svg+xml"],
} as const;

/** The paths of the page's files under {@link INSPECTOR_PATH}. */
export const INSPECTOR_FILES = Object.keys(FILES) as (keyof typeof FILES)[];

/** The answer for one of the page's files. */
export function inspectorFile(path: keyof typeof FILES): Response {
  const [part, type] = FILES[path];
  if (built === undefined && typeof __MEDRECORDS_INSPECTOR__ === "string") {
    built = JSON.parse(__MEDRECORDS_INSPECTOR__) as Built;
  }
  const headers = {
    "content-type": built === undefined ? "text/plain; charset=utf-8" : type,
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
  if (built === undefined) {
    return new Response(
      "The inspector's page is bundled by the package build (npm run build) and by the test run (vitest); these sources were loaded without either.\n",
      { status: 503, headers },
    );
  }
  return new Response(built[part], { status: 200, headers });
}

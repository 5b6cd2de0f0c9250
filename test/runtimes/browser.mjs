// The browser entry of the runtime matrix: runs the shared checks in the page
// and leaves the results on `window.__runtimeMatrix` for run-browser.mjs. The
// client talks to the page's own origin, which proxies /v2/* to the reference
// server (see run-browser.mjs). The API key comes in the page's query string.
import { runChecks } from "./checks.mjs";

const apiKey = new URLSearchParams(location.search).get("apiKey") ?? "";
runChecks({ label: "chromium", baseUrl: location.origin, apiKey }).then(
  (results) => {
    window.__runtimeMatrix = { results };
  },
  (error) => {
    window.__runtimeMatrix = { error: String(error?.stack ?? error) };
  },
);

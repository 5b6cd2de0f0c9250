// Chromium's flags for the browser tests (the runtime matrix's page and the
// inspector's): headless, and no network but loopback: no update checks, no
// component downloads, no QUIC probes.
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

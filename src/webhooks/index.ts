export { readHeader, WEBHOOK_HEADERS, type WebhookHeaders } from "./headers.js";

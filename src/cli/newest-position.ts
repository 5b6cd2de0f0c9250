import type { MedRecords } from "../client.js";
import { PAGE_LIMIT_MAX } from "../schemas/common.js";
import { type Checkpoint, compareInstants } from "../shared/checkpoint-store.js";

/**
 * "Now" on the service's log, where `listen` and `events tail` start by
 * default: just after the newest event, with every event at its instant
 * marked as seen (they list together, newest first). Taken from the service
 * rather than this machine's clock, so that clock skew neither drops nor
 * replays events. An empty log: null, from its start.
 */
export async function positionAfterNewest(
  mr: MedRecords,
  types: string[] | undefined,
): Promise<Checkpoint | null> {
  let page = await mr.events.list({
    limit: PAGE_LIMIT_MAX,
    ...(types === undefined ? {} : { type: types }),
  });
  const newest = page.results[0];
  if (newest === undefined) return null;
  const ids: string[] = [];
  for (;;) {
    for (const event of page.results) {
      if (compareInstants(event.created_at, newest.created_at) !== 0) {
        return { created_at: newest.created_at, ids_at_created_at: ids };
      }
      ids.push(event.id);
    }
    if (!page.hasNextPage()) return { created_at: newest.created_at, ids_at_created_at: ids };
    page = await page.getNextPage();
  }
}

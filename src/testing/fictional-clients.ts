/**
 * Fictional clients for tests, whose every value is a canary: a string so
 * obviously invented and so unlikely elsewhere that finding it in a log line,
 * an error or a request to a third party proves PHI leaked
 * (`assertNoCanaryLeak`). Each is valid case-creation input, so
 * `mock.seed.case(FICTIONAL_CLIENTS[0])` or a `POST /v2/cases` takes it as is.
 */

/** One fictional client: the PHI fields of a case. */
export interface FictionalClient {
  /** The case title, e.g. "Canary v. ...". */
  readonly title: string;
  /** The client's full name. */
  readonly client_name: string;
  /** `YYYY-MM-DD`. */
  readonly client_date_of_birth: string;
  /** An address under a reserved test domain. */
  readonly client_email: string;
  /** A fictional phone number. */
  readonly client_phone: string;
  /** A fictional postal address. */
  readonly client_address: string;
  /** The case description. */
  readonly description: string;
  /** `YYYY-MM-DD`, in the past. */
  readonly date_of_injury: string;
  /** The firm's own identifier of the case. */
  readonly external_id: string;
}

/** Three fictional clients; no value is shared between them or with anything real. */
export const FICTIONAL_CLIENTS: readonly FictionalClient[] = Object.freeze([
  Object.freeze({
    title: "Canary-Quetzalwyn v. Fictive Freight Lines",
    client_name: "Quorra Canary-Quetzalwyn",
    client_date_of_birth: "1907-07-17",
    client_email: "quorra.canary-quetzalwyn@phi-canary.example",
    client_phone: "+1 555 0107 1717",
    client_address: "17 Canary-Quetzalwyn Row, Nowhere Falls",
    description: "Canary-Quetzalwyn left wrist fracture, see canary ER notes",
    date_of_injury: "1931-03-13",
    external_id: "MRN-CANARY-QUETZALWYN-0717",
  }),
  Object.freeze({
    title: "Canary-Xylobrand v. Imaginary Insurance",
    client_name: "Barnaby Canary-Xylobrand",
    client_date_of_birth: "1903-03-23",
    client_email: "barnaby.canary-xylobrand@phi-canary.example",
    client_phone: "+1 555 0103 2323",
    client_address: "23 Canary-Xylobrand Court, Elsewhere Flats",
    description: "Canary-Xylobrand whiplash after a made-up collision",
    date_of_injury: "1933-05-15",
    external_id: "MRN-CANARY-XYLOBRAND-0323",
  }),
  Object.freeze({
    title: "Canary-Vireonne v. Pretend Pharmacy",
    client_name: "Odalys Canary-Vireonne",
    client_date_of_birth: "1905-05-25",
    client_email: "odalys.canary-vireonne@phi-canary.example",
    client_phone: "+1 555 0105 2525",
    client_address: "25 Canary-Vireonne Lane, Faraway Hollow",
    description: "Canary-Vireonne adverse reaction to a fictional drug",
    date_of_injury: "1935-09-19",
    external_id: "MRN-CANARY-VIREONNE-0525",
  }),
]);

/** One value that must never leave the application except towards the API. */
export interface Canary {
  /** Which client and field, e.g. `FICTIONAL_CLIENTS[0].client_name`: safe to print. */
  readonly kind: string;
  /** The canary itself: a value that must never appear outside the API. */
  readonly value: string;
}

/** Every value of every fictional client, as canaries. */
export const PHI_CANARIES: readonly Canary[] = Object.freeze(
  FICTIONAL_CLIENTS.flatMap((client, i) =>
    Object.entries(client).map(([field, value]) =>
      Object.freeze({ kind: `FICTIONAL_CLIENTS[${i}].${field}`, value: value as string }),
    ),
  ),
);

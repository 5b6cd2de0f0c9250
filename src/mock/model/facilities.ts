/**
 * The facility directory: a seeded list of (fictional) providers that
 * `GET /v2/facilities?query=` searches, plus every facility given inline in a
 * retrieval request, which joins the directory.
 */
import type { Facility, FacilityCreate } from "../../schemas/facilities.js";
import { notFound } from "../runtime/http-error.js";
import { type Page, type PageRequest, paginate } from "./paginate.js";
import { nextRetrievalId } from "./retrieval-state.js";
import { defineSlice, type ModelContext, type Stored } from "./state.js";

/** A facility; `seq` is its place in the directory's own order. */
export type StoredFacility = Stored<Facility>;

/**
 * The directory every mock starts with (and returns to on `reset()`). Ids are
 * stable, so tests may use them as `facility_id`. Names, addresses and
 * 555-01xx numbers are fictional.
 */
export const MOCK_FACILITIES: readonly Readonly<Facility>[] = [
  {
    id: "fac_bayview_chiropractic",
    name: "Bayview Chiropractic",
    address: "48 Marina Way, San Diego, CA 92101",
    phone: "+1-619-555-0140",
    fax: "+1-619-555-0141",
  },
  {
    id: "fac_cedar_valley_pt",
    name: "Cedar Valley Physical Therapy",
    address: "710 Cedar Ave, Cedar Rapids, IA 52401",
    phone: "+1-319-555-0150",
    fax: null,
  },
  {
    id: "fac_greenfield_community",
    name: "Greenfield Community Hospital",
    address: "3 Hospital Drive, Greenfield, MA 01301",
    phone: "+1-413-555-0160",
    fax: "+1-413-555-0161",
  },
  {
    id: "fac_lakeside_orthopedics",
    name: "Lakeside Orthopedic Clinic",
    address: "220 Shore Rd, Madison, WI 53703",
    phone: "+1-608-555-0170",
    fax: "+1-608-555-0171",
  },
  {
    id: "fac_mercy_general",
    name: "Mercy General Hospital",
    address: "1200 Harbor Blvd, Springfield, IL 62701",
    phone: "+1-217-555-0100",
    fax: "+1-217-555-0101",
  },
  {
    id: "fac_northwind_family",
    name: "Northwind Family Practice",
    address: "95 Birch St, Portland, ME 04101",
    phone: "+1-207-555-0180",
    fax: "+1-207-555-0181",
  },
  {
    id: "fac_oakridge_neurology",
    name: "Oakridge Neurology Group",
    address: "1800 Oak Ridge Pkwy, Knoxville, TN 37902",
    phone: "+1-865-555-0190",
    fax: "+1-865-555-0191",
  },
  {
    id: "fac_riverside_imaging",
    name: "Riverside Imaging Associates",
    address: "560 River St, Springfield, MA 01103",
    phone: "+1-413-555-0120",
    fax: "+1-413-555-0121",
  },
  {
    id: "fac_st_annes",
    name: "St. Anne's Medical Center",
    address: "400 Cathedral Ave, Albany, NY 12203",
    phone: "+1-518-555-0130",
    fax: "+1-518-555-0131",
  },
  {
    id: "fac_summit_urgent_care",
    name: "Summit Urgent Care",
    address: "12 Summit Blvd, Denver, CO 80202",
    phone: "+1-303-555-0110",
    fax: null,
  },
];

interface FacilityDirectory {
  readonly facilities: Map<string, StoredFacility>;
  /** The directory's own order: the last place handed out. */
  lastOrdinal: number;
}

/**
 * This module's slice of the state: the directory, seeded when first used.
 * Lists are newest first, so seeding in reverse lists it A to Z.
 */
const directorySlice = defineSlice("facilities", (): FacilityDirectory => {
  const directory: FacilityDirectory = { facilities: new Map(), lastOrdinal: 0 };
  for (const facility of [...MOCK_FACILITIES].reverse()) {
    directory.facilities.set(facility.id, {
      seq: nextOrdinal(directory),
      value: { ...facility },
    });
  }
  return directory;
});

function nextOrdinal(directory: FacilityDirectory): number {
  directory.lastOrdinal += 1;
  return directory.lastOrdinal;
}

/** Adds an inline facility to the directory. */
export function createFacility(ctx: ModelContext, input: FacilityCreate): Facility {
  const directory = directorySlice.of(ctx);
  const facility: Facility = {
    id: nextRetrievalId(ctx, "inline_facility", "fac_"),
    name: input.name,
    address: input.address,
    phone: input.phone ?? null,
    fax: input.fax ?? null,
  };
  directory.facilities.set(facility.id, { seq: nextOrdinal(directory), value: facility });
  return { ...facility };
}

/** Whether the directory holds the facility. */
export function facilityExists(ctx: ModelContext, facilityId: string): boolean {
  return directorySlice.of(ctx).facilities.has(facilityId);
}

export function getFacility(ctx: ModelContext, facilityId: string): Facility {
  const stored = directorySlice.of(ctx).facilities.get(facilityId);
  if (stored === undefined) throw notFound("The facility does not exist.");
  return { ...stored.value };
}

/**
 * Facilities whose name or address contains every word of `query`,
 * case-insensitively: the seeded directory A to Z after inline ones, newest first.
 */
export function searchFacilities(
  ctx: ModelContext,
  query: string,
  page: PageRequest,
): Page<Facility> {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const matching = [...directorySlice.of(ctx).facilities.values()].filter(({ value }) => {
    const text = `${value.name} ${value.address}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
  const result = paginate(matching, (stored) => stored.seq, page);
  return { ...result, results: result.results.map((stored) => ({ ...stored.value })) };
}

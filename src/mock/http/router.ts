/**
 * A method + path-pattern router. Patterns name a parameter segment
 * `{name}` (the API contract's OpenAPI syntax) or `:name` (the control API
 * and storage routes); a path that
 * matches no pattern for the method is simply not found, because the spec's
 * answer to both an unknown path and a wrong method is 404 `not_found`.
 */

export type PathParams = Record<string, string>;

export interface RouteMatch<T> {
  route: T;
  params: PathParams;
}

interface CompiledRoute<T> {
  method: string;
  segments: readonly string[];
  /** The parameter's name of each segment, undefined for a fixed one. */
  names: readonly (string | undefined)[];
  route: T;
}

export class Router<T> {
  readonly #routes: CompiledRoute<T>[] = [];

  add(method: string, pattern: string, route: T): this {
    const segments = split(pattern);
    this.#routes.push({
      method: method.toUpperCase(),
      segments,
      names: segments.map(paramName),
      route,
    });
    return this;
  }

  match(method: string, pathname: string): RouteMatch<T> | undefined {
    const segments = split(pathname);
    const upper = method.toUpperCase();
    for (const candidate of this.#routes) {
      if (candidate.method !== upper) continue;
      const params = matchSegments(candidate, segments);
      if (params) return { route: candidate.route, params };
    }
    return undefined;
  }
}

function split(path: string): string[] {
  // A leading slash is expected; an empty segment from "//" or a trailing "/"
  // is kept so that "/v2/cases/" does not silently match "/v2/cases".
  return path.split("/").slice(1);
}

/** `case_id` of `{case_id}` or `:case_id`; undefined for a fixed segment. */
function paramName(segment: string): string | undefined {
  if (segment.startsWith(":")) return segment.slice(1);
  if (segment.startsWith("{") && segment.endsWith("}")) return segment.slice(1, -1);
  return undefined;
}

function matchSegments(
  { segments: pattern, names }: CompiledRoute<unknown>,
  actual: readonly string[],
): PathParams | undefined {
  if (pattern.length !== actual.length) return undefined;
  // The fixed segments first: most patterns are refused there, before any decoding.
  for (let i = 0; i < pattern.length; i++) {
    const segment = actual[i] as string;
    if (names[i] !== undefined ? segment === "" : pattern[i] !== segment) return undefined;
  }
  const params: PathParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const name = names[i];
    if (name === undefined) continue;
    try {
      params[name] = decodeURIComponent(actual[i] as string);
    } catch {
      return undefined;
    }
  }
  return params;
}

/**
 * A method + path-pattern router. Patterns use `:name` segments; a path that
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
  route: T;
}

export class Router<T> {
  readonly #routes: CompiledRoute<T>[] = [];

  add(method: string, pattern: string, route: T): this {
    this.#routes.push({ method: method.toUpperCase(), segments: split(pattern), route });
    return this;
  }

  match(method: string, pathname: string): RouteMatch<T> | undefined {
    const segments = split(pathname);
    const upper = method.toUpperCase();
    for (const candidate of this.#routes) {
      if (candidate.method !== upper) continue;
      const params = matchSegments(candidate.segments, segments);
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

function matchSegments(
  pattern: readonly string[],
  actual: readonly string[],
): PathParams | undefined {
  if (pattern.length !== actual.length) return undefined;
  // The fixed segments first: most patterns are refused there, before any decoding.
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] as string;
    const segment = actual[i] as string;
    if (expected.startsWith(":") ? segment === "" : expected !== segment) return undefined;
  }
  const params: PathParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] as string;
    if (!expected.startsWith(":")) continue;
    try {
      params[expected.slice(1)] = decodeURIComponent(actual[i] as string);
    } catch {
      return undefined;
    }
  }
  return params;
}

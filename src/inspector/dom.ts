/**
 * The page's one DOM helper: elements built with `textContent` and
 * attributes only, never HTML strings, so a file name or a message from the
 * API shows as text and cannot become markup. A region is redrawn whole when
 * its data changes; what the user holds in it (focus, typed values, open
 * details) is carried across by `data-key`, so polling never takes a control
 * from under the keyboard.
 */

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

/** `<tag attributes>children</tag>`; a false, null or undefined attribute is left out, true is present. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "number" ? String(child) : child);
  }
  return element;
}

/** A mock-clock time as text, UTC to the millisecond, in a `<time>`. */
export function time(iso: string): HTMLTimeElement {
  return h("time", { datetime: iso }, iso.replace("T", " ").replace("Z", " UTC"));
}

interface Held {
  value?: string;
  open?: boolean;
}

/** Replaces `container`'s children, keeping focus, values and open details of elements with the same `data-key`. */
export function redraw(container: HTMLElement, ...nodes: Node[]): void {
  const held = new Map<string, Held>();
  for (const element of container.querySelectorAll<HTMLElement>("[data-key]")) {
    const key = element.dataset.key as string;
    if (element instanceof HTMLInputElement || element instanceof HTMLSelectElement) {
      held.set(key, { value: element.value });
    } else if (element instanceof HTMLDetailsElement) {
      held.set(key, { open: element.open });
    }
  }
  const active = document.activeElement;
  const focused =
    active instanceof HTMLElement && container.contains(active) ? active.dataset.key : undefined;
  container.replaceChildren(...nodes);
  for (const element of container.querySelectorAll<HTMLElement>("[data-key]")) {
    const key = element.dataset.key as string;
    const state = held.get(key);
    if (state?.value !== undefined) (element as HTMLInputElement).value = state.value;
    if (state?.open !== undefined) (element as HTMLDetailsElement).open = state.open;
    if (key === focused) element.focus({ preventScroll: true });
  }
}

/** A table with a caption and column headers; each row is a list of cells. */
export function table(caption: string, columns: string[], rows: Node[][]): HTMLTableElement {
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...columns.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...rows.map((cells) => h("tr", {}, ...cells.map((c) => h("td", {}, c))))),
  );
}

/** A line saying that a list is empty, or that only its newest entries are shown. */
export function note(text: string): HTMLParagraphElement {
  return h("p", { class: "note" }, text);
}
